<?php

use Illuminate\Http\Request;
use Illuminate\Support\Facades\Route;

// POST /api/orders: the documented $request->validate() in a route closure
// (https://laravel.com/docs/8.x/validation#quick-writing-the-validation-logic).
Route::post('/orders', function (Request $request) {
    $validated = $request->validate([
        'name' => 'required|string',
        'email' => 'required|email',
        'address' => 'required|array',
        'address.city' => 'required|string',
        'items' => 'required|array',
        'items.*.sku' => 'required|string',
    ]);

    return response()->json($validated, 201);
});
