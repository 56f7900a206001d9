import type { Clock, TimerHandle } from '../machinery/clock.ts';
import { StatusError } from '../machinery/status.ts';
import type { Registry } from './registry.ts';
import { RESOURCES, type ResourceInfo } from './resources.ts';
import { SYSTEM_PRIORITY_CLASSES } from './strategies.ts';

const NAMESPACES = RESOURCES.find((r) => r.resource === 'namespaces' && r.group === '')!;
const SERVICES = RESOURCES.find((r) => r.resource === 'services' && r.group === '')!;
const PRIORITY_CLASSES = RESOURCES.find((r) => r.resource === 'priorityclasses' && r.group === 'scheduling.k8s.io')!;
const CORE_EVENTS = RESOURCES.find((r) => r.resource === 'events' && r.group === '')!;
const STORED_NAMESPACED = RESOURCES.filter((r) => r.namespaced && r.group !== 'authorization.k8s.io' && !(r.resource === 'events' && r.group !== ''));

/** The namespaces every cluster has from the start. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function ignoreExists(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  }
}

/**
 * Creates the system namespaces, the `kubernetes` Service (10.0.0.1:443) and the built-in
 * PriorityClasses `system-node-critical` / `system-cluster-critical` if missing. Idempotent.
 */
export function bootstrap(registry: Registry, serviceIP = '10.0.0.1', securePort = 6443): void {
  const opts = { manager: 'kube-apiserver', dryRun: false };
  for (const name of SYSTEM_NAMESPACES) {
    if (!registry.storage.get(registry.key(NAMESPACES, '', name))) ignoreExists(() => registry.create(NAMESPACES, '', { metadata: { name } }, opts));
  }
  for (const pc of SYSTEM_PRIORITY_CLASSES) {
    if (registry.storage.get(registry.key(PRIORITY_CLASSES, '', pc.name))) continue;
    ignoreExists(() => registry.create(PRIORITY_CLASSES, '', { metadata: { name: pc.name }, value: pc.value, description: pc.description, globalDefault: false }, opts));
  }
  if (!registry.storage.get(registry.key(SERVICES, 'default', 'kubernetes'))) {
    ignoreExists(() =>
      registry.create(
        SERVICES,
        'default',
        {
          metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
          spec: { type: 'ClusterIP', clusterIP: serviceIP, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }] },
        },
        opts,
      ),
    );
  }
}

/**
 * The API server's own periodic work until a controller manager exists: finishing terminating
 * namespaces (deleting their contents, then the namespace once its `kubernetes` finalizer has
 * nothing left to wait for) and expiring Events older than `--event-ttl`.
 */
export class Housekeeping {
  private timer?: TimerHandle;
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly clock: Clock,
    private readonly opts: { eventTTLMs: number; intervalMs: number } = { eventTTLMs: 3600_000, intervalMs: 1000 },
  ) {}

  /** Starts the periodic loop on the injected clock. */
  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.runOnce();
      this.timer = this.clock.setTimer(this.opts.intervalMs, tick);
      this.timer.unref?.();
    };
    this.timer = this.clock.setTimer(this.opts.intervalMs, tick);
    this.timer.unref?.();
  }

  /** Stops the loop. */
  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimer(this.timer);
  }

  private lastEventSweep = Number.NEGATIVE_INFINITY;

  /** One pass: terminating namespaces every time, expired events at most once a minute. */
  runOnce(): void {
    this.finalizeNamespaces();
    const now = this.clock.now();
    if (now - this.lastEventSweep >= 60_000) {
      this.lastEventSweep = now;
      this.expireEvents();
    }
  }

  private finalizeNamespaces(): void {
    const reg = this.registry;
    const opts = { manager: 'namespace-controller', dryRun: false };
    for (const ns of reg.list(NAMESPACES, '', {}).items) {
      if (!ns.metadata.deletionTimestamp) continue;
      const name = ns.metadata.name;
      let remaining = 0;
      for (const r of STORED_NAMESPACED) remaining += this.drain(r, name);
      if (remaining > 0) continue;
      try {
        reg.update(NAMESPACES, '', name, { ...ns, spec: { ...ns.spec, finalizers: (ns.spec?.finalizers ?? []).filter((f: string) => f !== 'kubernetes') } }, { ...opts, subresource: 'finalize' });
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
      }
    }
  }

  private drain(r: ResourceInfo, namespace: string): number {
    const reg = this.registry;
    const items = reg.list(r, namespace, {}).items;
    for (const item of items) {
      if (item.metadata.deletionTimestamp) continue;
      try {
        reg.delete(r, namespace, item.metadata.name, { dryRun: false, propagationPolicy: 'Background' });
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
      }
    }
    return reg.storage.count(reg.prefix(r, namespace));
  }

  private expireEvents(): void {
    const reg = this.registry;
    const cutoff = this.clock.now() - this.opts.eventTTLMs;
    for (const ev of reg.list(CORE_EVENTS, '', {}).items) {
      const t = Date.parse(ev.metadata.creationTimestamp ?? '');
      if (Number.isFinite(t) && t < cutoff) {
        try {
          reg.delete(CORE_EVENTS, ev.metadata.namespace, ev.metadata.name, { dryRun: false });
        } catch (e) {
          if (!(e instanceof StatusError)) throw e;
        }
      }
    }
  }
}
