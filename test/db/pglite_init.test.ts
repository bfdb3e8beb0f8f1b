/** A new embedded folder is created on a thread of its own, then opened like any later start: same data, reopened. */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../src/db/db.js';
import { isNewCluster } from '../../src/db/pglite_init.js';

t.test('a new DATA_DIR is created off-thread, then opened and reopened', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'voicecall-pglite-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.ok(isNewCluster(join(dir, 'pglite')), 'nothing there yet');
  const db = await openDb({ dataDir: dir, pgliteSharedBuffersMb: 16 });
  t.notOk(isNewCluster(join(dir, 'pglite')), 'the cluster exists');
  await db.query('CREATE TABLE kept (v text)');
  await db.query("INSERT INTO kept VALUES ('still here')");
  t.same((await db.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v")).rows, [{ v: '16MB' }], 'the buffer pool setting applies');
  await db.close();
  const again = await openDb({ dataDir: dir });
  t.same((await again.query('SELECT v FROM kept')).rows, [{ v: 'still here' }]);
  await again.close();
});
