import { enableCompileCache } from 'node:module';

// V8's code cache for every module, kept between starts (under the OS temp directory, or
// NODE_COMPILE_CACHE): compiling the modules is a large part of start-up. Enabled before the
// application's modules are loaded, hence the dynamic import; where the cache cannot be written, it
// is simply not used.
enableCompileCache();
await import('./start.js');
