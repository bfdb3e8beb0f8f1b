// `npm start`: runs the compiled service (dist/server), compiling first when a source file changed since the last
// build, so an edit in src/ is never silently ignored. Compiled JavaScript starts faster and holds less memory than
// TypeScript through a loader (bench/README.md, startup). `npm run dev` runs src/ through tsx instead.
import { buildServer, staleReason } from './build_server.mjs';

const why = staleReason();
if (why) {
  process.stdout.write(`voicecall: compiling TypeScript (${why}) …\n`);
  await buildServer();
}
await import('../dist/server/src/main.js');
