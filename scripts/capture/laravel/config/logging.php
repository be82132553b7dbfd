<?php
// config/logging.php: the skeleton's "single" channel (written under the temporary storage path).

return [
    'default' => 'single',
    'channels' => [
        'single' => ['driver' => 'single', 'path' => storage_path('logs/laravel.log'), 'level' => 'debug'],
    ],
];
