import type { MessagePort } from 'node:worker_threads';
import { Client } from '../client/client.ts';
import { HttpTransport } from '../client/http-transport.ts';
import { loadKubeconfig } from '../client/kubeconfig.ts';
import { realClock } from '../machinery/clock.ts';
import { CryptoRng } from '../machinery/rng.ts';
import { NodeAgent } from './agent.ts';
import { parseNodeAgentConfig } from './config.ts';
import { SimulatedRuntime, constantSampler } from './runtime.ts';

/** One simulated node of a fleet worker: its name and addresses. */
export interface FleetNodeSpec {
  nodeName: string;
  nodeIP: string;
  /** Pod range; absent means the configuration's podCIDR or the agent's own choice. */
  podCIDR?: string;
}

/** The plain, structured-cloneable task a fleet worker runs until told to stop. */
export interface FleetWorkerTask {
  /** Index of this worker in the fleet (for messages). */
  worker: number;
  kubeconfigPath: string;
  /** KubeletConfiguration text ('' for the defaults); parsed in the worker. */
  configText: string;
  flags: Record<string, string>;
  nodes: FleetNodeSpec[];
  capacity: { cpu: string; memory: string; pods?: number; 'ephemeral-storage'?: string };
  pullLatencyMs: number;
  startLatencyMs: number;
  /** Control channel: receives `{ type: 'stop' }`; sends {@link FleetWorkerMessage}s. */
  port: MessagePort;
}

/** What a fleet worker reports on its port. */
export type FleetWorkerMessage =
  | { type: 'registered'; worker: number; nodeName: string }
  | { type: 'ready'; worker: number; agents: number }
  | { type: 'agentError'; worker: number; nodeName: string; message: string };

/** The result of a fleet worker's task, once stopped. */
export interface FleetWorkerResult {
  worker: number;
  agents: number;
  /** Failed API calls or syncs the agents reported (all were retried). */
  agentErrors: number;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs the task's node agents in this worker thread: one HttpTransport (keep-alive, enough
 * sockets for every agent's pod watch plus shared request sockets), one Client per agent with the
 * configuration's kubeAPIQPS / kubeAPIBurst, a SimulatedRuntime on the real clock with constant
 * pull and start latencies. Posts `registered` per node and `ready` when all are registered;
 * on `{ type: 'stop' }` stops every agent, closes the transport and resolves. Agent errors are
 * forwarded (at most one per node per second) and counted, never fatal.
 */
export default async function runFleetWorker(task: FleetWorkerTask): Promise<FleetWorkerResult> {
  const { port, worker } = task;
  const config = parseNodeAgentConfig(task.configText, { flags: task.flags });
  const access = loadKubeconfig(task.kubeconfigPath);
  const transport = new HttpTransport(access, { maxSockets: task.nodes.length + 32, userAgent: 'orrery-node-agent/v1.27.0' });
  const rng = new CryptoRng();
  let agentErrors = 0;
  const lastForwarded = new Map<string, number>();
  let stopRequested!: () => void;
  const stopping = new Promise<void>((r) => (stopRequested = r));
  port.on('message', (m: any) => {
    if (m?.type === 'stop') stopRequested();
  });
  port.on('close', () => stopRequested());

  const agents = task.nodes.map(
    (n) =>
      new NodeAgent({
        client: new Client({ transport, qps: config.kubeAPIQPS, burst: config.kubeAPIBurst, clock: realClock, userAgent: `orrery-node-agent/v1.27.0 (${n.nodeName})` }),
        clock: realClock,
        rng,
        nodeName: n.nodeName,
        nodeIP: n.nodeIP,
        podCIDR: n.podCIDR,
        config,
        capacity: task.capacity,
        runtime: new SimulatedRuntime({ clock: realClock, rng, pullLatency: constantSampler(task.pullLatencyMs), startLatency: constantSampler(task.startLatencyMs) }),
        onError: (err) => {
          agentErrors++;
          const now = realClock.now();
          if ((lastForwarded.get(n.nodeName) ?? -Infinity) + 1000 > now) return;
          lastForwarded.set(n.nodeName, now);
          port.postMessage({ type: 'agentError', worker, nodeName: n.nodeName, message: describe(err) } satisfies FleetWorkerMessage);
        },
      }),
  );
  try {
    const started = Promise.all(
      agents.map(async (a) => {
        await a.start();
        port.postMessage({ type: 'registered', worker, nodeName: a.nodeName } satisfies FleetWorkerMessage);
      }),
    ).then(() => port.postMessage({ type: 'ready', worker, agents: agents.length } satisfies FleetWorkerMessage));
    started.catch(() => undefined);
    await Promise.race([started, stopping]);
    await stopping;
  } finally {
    await Promise.allSettled(agents.map((a) => a.stop()));
    transport.close();
    port.close();
  }
  return { worker, agents: agents.length, agentErrors };
}
