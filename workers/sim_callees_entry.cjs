// CommonJS entry of the simulated-callee thread. Which way a TypeScript loader reaches into a worker differs:
// tsx hooks require() there but not import() of a .ts entry; tap's loader hooks import(). Try both, like piscina.
const { workerData } = require('node:worker_threads');
try {
  require(workerData.file);
} catch (err) {
  if (!(err instanceof SyntaxError) && err.code !== 'ERR_REQUIRE_ESM' && err.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  import(workerData.href).catch((e) => { setImmediate(() => { throw e; }); });
}
