// Stack traces and debug dumps in the shapes common runtimes print them, each with a planted
// secret in the exception's message and in a frame: whatever fromResponse shows must hold neither.
import fc from 'fast-check';

/** A token planted in stack traces and debug members; it must never reach a message. */
export const SECRET = 'zqPlantedSecret7f3c';

const PADDING = fc.constantFrom('', ' (while loading order 42)', `: ${'x'.repeat(300)}`, `: ${'y '.repeat(3000)}`);

/** One runtime's stack trace; `pad` lengthens the exception's message line past the message limits. */
const STACK_SHAPES: readonly ((pad: string) => string)[] = [
  (pad) => `Error: ${SECRET}${pad}\n    at Object.<anonymous> (/home/deploy/app/${SECRET}.js:12:9)\n    at Module._compile (node:internal/modules/cjs/loader:1364:14)`,
  (pad) => `TypeError: ${SECRET}${pad}\n    at handler (file:///Users/dev/shop/${SECRET}.mjs:3:7)\n    at async Promise.all (index 0)`,
  (pad) => `RangeError: ${SECRET}${pad}\n    at new Cart (webpack-internal:///./src/${SECRET}.tsx:41:11)\n    at renderWithHooks (node:internal/x:1:1)`,
  (pad) => `Error: ${SECRET}${pad}\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`,
  (pad) => `Traceback (most recent call last):\n  File "/srv/app/${SECRET}.py", line 41, in checkout\n    total = price / qty\nZeroDivisionError: ${SECRET}${pad}`,
  (pad) => `java.lang.IllegalStateException: ${SECRET}${pad}\n\tat com.example.shop.CartController.add(${SECRET}.java:57)\n\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)`,
  (pad) => `com.example.OrderException: ${SECRET}${pad}\n\tat com.example.Orders.get(Orders.java:12)`,
  (pad) => `NoMethodError (undefined method \`${SECRET}' for nil:NilClass${pad}):\n  app/controllers/orders_controller.rb:14:in \`show'`,
  (pad) => `panic: ${SECRET}${pad}\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/sandbox/${SECRET}.go:8 +0x18\nexit status 2`,
  (pad) => `PHP Fatal error:  Uncaught Exception: ${SECRET}${pad} in /var/www/html/index.php:3\nStack trace:\n#0 {main}\n  thrown in /var/www/html/index.php on line 3`,
  (pad) => `System.InvalidOperationException: ${SECRET}${pad}\n   at Shop.Orders.Get(Int32 id) in C:\\src\\Shop\\${SECRET}.cs:line 42`,
  (pad) => `DoesNotExist at /orders/42/\nOrder matching query does not exist ${SECRET}${pad}\n\nTraceback (most recent call last):\n  File "/srv/shop/orders/views.py", line 27, in order_detail`,
];

/** How a page shows a stack: as it is, or HTML-escaped with <br> line breaks (Express's development handler). */
const asHtml = (stack: string): string => stack.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\n/g, '<br>').replace(/ {2}/g, ' &nbsp;');

/** A stack trace with the secret in it, as plain text or as a page shows it. */
export const stackTrace: fc.Arbitrary<string> = fc
  .tuple(fc.nat(STACK_SHAPES.length - 1), PADDING, fc.boolean())
  .map(([shape, pad, html]) => (html ? asHtml(STACK_SHAPES[shape]!(pad)) : STACK_SHAPES[shape]!(pad)));
