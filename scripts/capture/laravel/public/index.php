<?php
// Front controller: laravel/laravel 8.x public/index.php, with Composer's vendor/autoload.php replaced by
// Debian's php-laravel-framework autoloader (/usr/share/php/Illuminate/autoload.php) plus a PSR-4 loader for App\.

use Illuminate\Contracts\Http\Kernel;
use Illuminate\Http\Request;

define('LARAVEL_START', microtime(true));

require '/usr/share/php/Illuminate/autoload.php';

spl_autoload_register(function ($class) {
    if (strncmp($class, 'App\\', 4) === 0) {
        $file = __DIR__.'/../app/'.str_replace('\\', '/', substr($class, 4)).'.php';
        if (is_file($file)) {
            require $file;
        }
    }
});

// Keep the framework's caches and storage out of the source tree.
$tmp = sys_get_temp_dir().'/laravel-capture';
foreach (['APP_SERVICES_CACHE' => 'services.php', 'APP_PACKAGES_CACHE' => 'packages.php'] as $k => $f) {
    $_ENV[$k] = $_SERVER[$k] = "$tmp/$f";
}
@mkdir("$tmp/storage/logs", 0777, true);
@mkdir("$tmp/storage/framework/views", 0777, true);

$app = require_once __DIR__.'/../bootstrap/app.php';
$app->useStoragePath("$tmp/storage");

$kernel = $app->make(Kernel::class);

$response = $kernel->handle(
    $request = Request::capture()
)->send();

$kernel->terminate($request, $response);
