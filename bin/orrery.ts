import { Command, InvalidArgumentError } from 'commander';
import { writeFileSync } from 'node:fs';
import { serve } from '../core/apiserver/serve.ts';
import { runSimulation } from '../sim/cluster.ts';
import { runNodeAgentFleet } from '../core/nodeagent/fleet.ts';
import { runLiveScheduler } from '../core/scheduler/live.ts';

/** The orrery command line: options as data, actions that parse and call a programmatic API. */
function int(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    if (!/^\d+$/.test(v) || Number(v) > max) throw new InvalidArgumentError(`${name} must be an integer from 0 to ${max}, got "${v}"`);
    return Number(v);
  };
}

function cidr(name: string) {
  return (v: string) => {
    const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(v);
    if (!m || m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) < 8 || Number(m[5]) > 30) {
      throw new InvalidArgumentError(`${name} must be an IPv4 CIDR with a prefix from /8 to /30, e.g. 10.0.0.0/24, got "${v}"`);
    }
    return v;
  };
}

function portRange(name: string) {
  return (v: string) => {
    const m = /^(\d+)-(\d+)$/.exec(v);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]) || Number(m[2]) > 65535) throw new InvalidArgumentError(`${name} must be MIN-MAX within 1-65535, e.g. 30000-32767, got "${v}"`);
    return v;
  };
}

function seconds(name: string) {
  return (v: string) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v);
    if (!m) throw new InvalidArgumentError(`${name} must be a duration like 300s, 5m or 1h, got "${v}"`);
    const n = Number(m[1]);
    return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
  };
}

const program = new Command();
program.name('orrery').description('Simulation and benchmarking framework for the Kubernetes control plane').showHelpAfterError();

program
  .command('serve')
  .description('Run the API server live over HTTPS until SIGINT/SIGTERM')
  .option('--data-dir <dir>', 'where the store, TLS pair and kubeconfig live', 'results/serve')
  .option('--secure-port <port>', 'HTTPS port (0 picks a free one)', int('--secure-port', 65535), 6443)
  .option('--bind-address <ip>', 'address to listen on', '0.0.0.0')
  .option('--tls-cert-file <file>', 'serving certificate (PEM); generated into the data dir when absent')
  .option('--tls-private-key-file <file>', 'serving key (PEM)')
  .option('--service-cluster-ip-range <cidr>', 'Service cluster IP range', cidr('--service-cluster-ip-range'), '10.0.0.0/24')
  .option('--service-node-port-range <range>', 'NodePort range', portRange('--service-node-port-range'), '30000-32767')
  .option('--event-ttl <duration>', 'how long Events are kept', seconds('--event-ttl'), 3600)
  .option('--watch-history-window <duration>', 'history kept for watches, continue tokens and Exact lists', seconds('--watch-history-window'), 300)
  .option('--min-request-timeout <seconds>', 'watches without timeoutSeconds last between this and twice it', int('--min-request-timeout'), 1800)
  .action(async (o) => {
    const running = await serve({
      dataDir: o.dataDir,
      securePort: o.securePort,
      bindAddress: o.bindAddress,
      tlsCertFile: o.tlsCertFile,
      tlsPrivateKeyFile: o.tlsPrivateKeyFile,
      serviceClusterIPRange: o.serviceClusterIpRange,
      serviceNodePortRange: o.serviceNodePortRange,
      eventTTLSeconds: o.eventTtl,
      watchHistoryWindowSeconds: o.watchHistoryWindow,
      minRequestTimeoutSeconds: o.minRequestTimeout,
    });
    const shutdown = (sig: string) => {
      process.stderr.write(`received ${sig}, shutting down\n`);
      running.stop().then(() => process.exit(0));
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });

program
  .command('simulate')
  .description('Simulate a cluster on virtual time: API server, scheduler and N node agents; create P pods; run until all are Running')
  .requiredOption('--nodes <n>', 'simulated nodes', int('--nodes'))
  .requiredOption('--pods <n>', 'pods to create', int('--pods'))
  .option('--seed <seed>', 'seed of every random stream', '1')
  .option('--trace <file>', 'write the ordered event trace to this file')
  .option('--until <duration>', 'stop at this virtual time even if pods are not all Running', seconds('--until'), 86400)
  .option('--idle <duration>', 'after all pods run, simulate this much idle time (heartbeats, leases) and report it', seconds('--idle'), 0)
  .option('--no-events', 'do not record Kubernetes Events (node agents, scheduler): about four fewer writes per pod')
  .option('--storage <kind>', 'the API server store: memory (revision log in memory) or sqlite (the serve store, in memory)', (v) => {
    if (v !== 'memory' && v !== 'sqlite') throw new InvalidArgumentError(`--storage must be memory or sqlite, got "${v}"`);
    return v;
  }, 'memory')
  .option('--realtime <factor>', 'pace virtual time to wall time: 1 is real time, 10 ten times faster (default: as fast as possible)', (v) => {
    const n = Number(v);
    if (!(n > 0 && Number.isFinite(n))) throw new InvalidArgumentError(`--realtime must be a positive number, got "${v}"`);
    return n;
  })
  .action(async (o) => {
    if (o.nodes < 1) throw new InvalidArgumentError('--nodes must be at least 1');
    const summary = await runSimulation({ nodes: o.nodes, pods: o.pods, seed: o.seed, trace: Boolean(o.trace), untilMs: o.until * 1000, idleAfterMs: o.idle * 1000, storage: o.storage, realtime: o.realtime, events: o.events });
    const { trace, ...rest } = summary;
    if (o.trace) writeFileSync(o.trace, trace!.join('\n') + '\n');
    process.stdout.write(`${JSON.stringify(rest)}\n`);
    process.exit(rest.podsRunning === o.pods ? 0 : 2);
  });

/** Stops `stop` on SIGINT/SIGTERM, then exits 0. */
function onSignals(stop: () => Promise<void>): void {
  const handler = (sig: string) => {
    process.stderr.write(`received ${sig}, shutting down\n`);
    stop().then(() => process.exit(0));
  };
  process.once('SIGINT', () => handler('SIGINT'));
  process.once('SIGTERM', () => handler('SIGTERM'));
}

program
  .command('node-agents')
  .description('Run a live fleet of simulated node agents (piscina worker threads) against any API server')
  .requiredOption('--kubeconfig <file>', 'kubeconfig of the API server')
  .requiredOption('--count <n>', 'number of node agents', int('--count'))
  .option('--name-prefix <prefix>', 'node names are PREFIX0, PREFIX1, …', 'orrery-node-')
  .option('--config <file>', 'KubeletConfiguration file for every agent')
  .option('--threads <n>', 'worker threads (default: min(count, cores))', int('--threads'))
  .action(async (o) => {
    if (o.count < 1) throw new InvalidArgumentError('--count must be at least 1');
    const fleet = await runNodeAgentFleet({ kubeconfigPath: o.kubeconfig, count: o.count, namePrefix: o.namePrefix, configPath: o.config, threads: o.threads });
    onSignals(() => fleet.stop());
    await fleet.ready;
    process.stderr.write(`${fleet.registered()} node agents registered\n`);
  });

program
  .command('scheduler')
  .description('Run the scheduler live against any API server')
  .requiredOption('--kubeconfig <file>', 'kubeconfig of the API server')
  .option('--config <file>', 'KubeSchedulerConfiguration file (profiles, plugins, leader election)')
  .option('--leader-elect <bool>', 'take part in leader election on kube-system/kube-scheduler', (v) => {
    if (v !== 'true' && v !== 'false') throw new InvalidArgumentError(`--leader-elect must be true or false, got "${v}"`);
    return v === 'true';
  })
  .action(async (o) => {
    const s = await runLiveScheduler({ kubeconfigPath: o.kubeconfig, configPath: o.config, leaderElect: o.leaderElect, onLeading: (l) => process.stderr.write(l ? 'leading\n' : 'lost leadership\n') });
    process.stderr.write(`scheduler ${s.identity} running\n`);
    onSignals(() => s.stop());
  });

program.parseAsync(process.argv).catch((e) => {
  process.stderr.write(`orrery: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
