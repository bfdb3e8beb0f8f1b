// Listener side of the stream benches, in a worker thread so the edge under test keeps its own event loop.
// Plain JS (ws only). Latency: transcript texts carry "t:<epoch ms>" stamped by the publisher.
import { parentPort } from 'node:worker_threads';
import WebSocket from 'ws';

const now = () => performance.timeOrigin + performance.now();
let sockets = [];
let stats = [];
let latencies = [];

async function open({ urls, headers }) {
  const opened = await Promise.all(urls.map((url, i) => new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, skipUTF8Validation: true });
    const s = { received: 0, lastSeq: 0, outOfOrder: 0 };
    stats.push(s);
    // Cheap field extraction instead of JSON.parse: the harness should take as little CPU from the edge as it can.
    ws.on('message', (data) => {
      const at = now();
      const text = data.toString('latin1');
      const i = text.indexOf('"seq":');
      const seq = Number(text.slice(i + 6, text.indexOf(',', i)));
      s.received++;
      if (seq !== s.lastSeq + 1) s.outOfOrder++;
      s.lastSeq = seq;
      const t = text.indexOf('"text":"t:');
      if (t >= 0) latencies.push(at - Number(text.slice(t + 10, text.indexOf('"', t + 10))));
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    void i;
  })));
  sockets.push(...opened);
  return { opened: opened.length };
}

parentPort.on('message', async (msg) => {
  try {
    if (msg.cmd === 'open') parentPort.postMessage(await open(msg));
    else if (msg.cmd === 'reset') { latencies = []; for (const s of stats) s.received = 0; parentPort.postMessage({ ok: true }); }
    else if (msg.cmd === 'report') parentPort.postMessage({ stats, latencies });
    else if (msg.cmd === 'close') {
      for (const ws of sockets) ws.terminate();
      sockets = []; stats = []; latencies = [];
      parentPort.postMessage({ ok: true });
    }
  } catch (err) { parentPort.postMessage({ error: String(err) }); }
});
