/**
 * One machine, every core: with INSTANCES=auto (one per core) or a number, this process becomes a supervisor that
 * forks that many service processes with node:cluster; they share the listening port (the primary hands out the
 * connections in turn). Each process is an instance like any other of a deployment (own engine row, own calls,
 * commands over Redis), so this needs PostgreSQL and Redis; the embedded default is one process by design (its
 * DATA_DIR lock, its in-process bus) and is refused. A worker that dies is replaced; SIGTERM/SIGINT stop them all.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';

/** How many processes INSTANCES asks for; undefined = the ordinary single process. Throws on a bad value. */
export function instancesWanted(value: string | undefined, cores = availableParallelism()): number | undefined {
  if (value === undefined || value === '' || value === '1') return undefined;
  if (value === 'auto') return cores > 1 ? cores : undefined;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 256) throw new Error('INSTANCES must be auto or a number from 1 to 256');
  return Number(value);
}

/** What is missing for several processes, or undefined when they may start. */
export function clusterRefusal(env: Record<string, string | undefined>): string | undefined {
  const missing = ['DATABASE_URL', 'REDIS_URL', 'SERVICE_JWT_SECRET'].filter((k) => !env[k]);
  if (!missing.length) return undefined;
  return `INSTANCES requires ${missing.join(', ')}: several processes share PostgreSQL, Redis and one token secret; `
    + 'the embedded default (PGlite, in-process bus) runs as one process (unset INSTANCES)';
}

/**
 * main.ts: INSTANCES read from the environment; exits 2 with the reason when it is bad or cannot be honoured.
 * True in the primary of several processes (it supervises only), false where the service itself must start.
 */
export function superviseInstances(log: Parameters<typeof startCluster>[1], env: Record<string, string | undefined> = process.env): boolean {
  let n: number | undefined;
  try {
    n = instancesWanted(env.INSTANCES);
    const refusal = n ? clusterRefusal(env) : undefined;
    if (refusal) throw new Error(refusal);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  return startCluster(n, log);
}

/**
 * What a person reads at start-up (progress and the banner) is printed once, by the first service process, with how
 * many there are; the others print only their JSON log lines. Outside a cluster: printed, no count.
 */
export function startupPrinter(env: Record<string, string | undefined> = process.env): { print: boolean; processes?: number } {
  if (!cluster.isWorker) return { print: true };
  return { print: cluster.worker?.id === 1, processes: instancesWanted(env.INSTANCES) };
}

/**
 * In the primary with INSTANCES asking for several: forks the workers, supervises them and resolves true (the
 * caller must not start a server itself). In a worker, or without INSTANCES: resolves false.
 */
export function startCluster(n: number | undefined, log: { info(o: object, m: string): void; warn(o: object, m: string): void }): boolean {
  if (!n || !cluster.isPrimary) return false;
  let stopping = false;
  const running = new Set<number>();
  const fork = () => { if (!stopping) running.add(cluster.fork().id); };
  for (let i = 0; i < n; i++) fork();
  cluster.on('exit', (w, code, signal) => {
    running.delete(w.id);
    if (stopping) {
      if (running.size === 0) process.exit(0);
      return;
    }
    log.warn({ pid: w.process.pid, code, signal }, 'a service process exited: starting another');
    // a worker that cannot start at all (bad configuration exits 2) would be restarted forever: stop instead
    if (code === 2) { log.warn({}, 'a service process refused to start: stopping'); process.exit(2); }
    setTimeout(fork, 1000).unref();
  });
  log.info({ processes: n }, 'voicecall starting one process per instance');
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping the service processes');
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      setTimeout(() => process.exit(1), 20_000).unref();
      if (running.size === 0) process.exit(0);
    });
  }
  return true;
}

/**
 * In a worker of INSTANCES: a listener of this process alone (the shared port hands connections to any process),
 * serving the same requests and sockets, whose address becomes this instance's INSTANCE_PUBLIC_URL: a carrier's
 * media socket must reach the process that runs its call. Port PORT + the worker's number (a random one when PORT
 * is 0); INSTANCE_PUBLIC_URL may name it with `{port}` (e.g. https://voice.example.com/p{port}/v1, mapped by the
 * proxy in front), else it is http://HOST:<port>/v1 (one machine: the simulator, loopback carriers' fakes).
 */
export async function listenAsThisInstance(server: { http: import('node:http').Server }, config: { HOST: string; PORT: number; INSTANCE_PUBLIC_URL?: string }): Promise<number | undefined> {
  if (!cluster.isWorker) return undefined;
  const own = createServer();
  own.on('request', (req, res) => server.http.emit('request', req, res));
  own.on('upgrade', (req, socket, head) => server.http.emit('upgrade', req, socket, head));
  const port = config.PORT === 0 ? 0 : config.PORT + (cluster.worker?.id ?? 0);
  await new Promise<void>((resolve, reject) => { own.once('error', reject); own.listen({ port, host: config.HOST, exclusive: true }, () => resolve()); });
  const actual = (own.address() as import('node:net').AddressInfo).port;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  config.INSTANCE_PUBLIC_URL = config.INSTANCE_PUBLIC_URL?.includes('{port}')
    ? config.INSTANCE_PUBLIC_URL.replaceAll('{port}', String(actual)) : config.INSTANCE_PUBLIC_URL ?? `http://${host}:${actual}/v1`;
  server.http.once('close', () => own.close());
  own.unref();
  return actual;
}
