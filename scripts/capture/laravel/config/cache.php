<?php
// config/cache.php: the array store, so every capture starts from a fresh rate-limit counter.

return [
    'default' => 'array',
    'stores' => [
        'array' => ['driver' => 'array', 'serialize' => false],
    ],
    'prefix' => 'laravel_cache',
];
