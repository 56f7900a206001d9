import type { Client, ResourceClient } from '../client/client.ts';
import { isNotFound } from '../client/client.ts';
import { SharedInformerFactory, type Informer } from '../client/informer.ts';
import type { Clock } from '../machinery/clock.ts';
import type { Rng } from '../machinery/rng.ts';
import { Profile, type ProfileConfig, type ScheduleResult } from './framework.ts';
import { podKey, SchedulerCache } from './nodeinfo.ts';
import { Nominator, preempt } from './preemption.ts';
import { defaultPluginRegistry, type Plugin, type PluginContext } from './plugins.ts';
import { podPriority, SchedulingQueue, type ClusterEvent, type QueuedPodInfo } from './queue.ts';
import { EventRecorder, type EventType } from '../client/events.ts';
import { formatTime } from '../machinery/time.ts';

/** The scheduler name pods get when they name none. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** A record of one scheduling attempt, for reports. */
export interface SchedulingDecision extends Omit<ScheduleResult, 'unschedulablePlugins' | 'nodeFailures'> {
  /** Clock time of the attempt (ms). */
  time: number;
  /** `namespace/name`. */
  pod: string;
  schedulerName: string;
  /** 1 for the first attempt of this pod. */
  attempt: number;
  result: 'Scheduled' | 'Unschedulable' | 'BindingFailed';
  /** Why the pod is unschedulable (Kubernetes' wording) or why binding failed. */
  message?: string;
  /** When the failed pod preempted others: the node it is now nominated to and the victims (`namespace/name`). */
  preemption?: { node: string; victims: string[]; numPDBViolations: number };
}

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  client: Client;
  clock: Clock;
  rng: Rng;
  /** Profiles by schedulerName (default: one `default-scheduler` profile with Kubernetes' default plugins). */
  profiles?: ProfileConfig[];
  /** Plugins available to profiles (default: every built-in plugin). */
  registry?: Map<string, Plugin>;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  /** Record Kubernetes events (FailedScheduling, Scheduled). Default true. */
  recordEvents?: boolean;
  /** Called with every decision. */
  onDecision?(d: SchedulingDecision): void;
  /** How many recent decisions `decisions` keeps (default 1000). */
  decisionHistory?: number;
  /** Awaited between scheduling cycles, to let I/O run (e.g. a macrotask yield when live). */
  yieldBetweenCycles?: () => Promise<void>;
  /** An informer factory to share with other components (default: a private one). */
  informers?: SharedInformerFactory;
  /** Told about failures that do not stop the scheduler (event or status writes, informer errors). */
  onError?(err: unknown): void;
  /** Identity in events (`reportingInstance`). */
  identity?: string;
}

const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const PDBS = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };

function isTerminal(pod: any): boolean {
  return pod?.status?.phase === 'Succeeded' || pod?.status?.phase === 'Failed';
}

function nodeChangedForScheduling(oldNode: any, node: any): boolean {
  const pick = (n: any) => JSON.stringify([n?.metadata?.labels, n?.spec?.taints, n?.spec?.unschedulable, n?.status?.allocatable]);
  return pick(oldNode) !== pick(node);
}

/**
 * The scheduler: watches pods and nodes through shared informers, queues pending pods whose
 * `spec.schedulerName` names one of its profiles (others are ignored), runs one scheduling cycle
 * at a time (filters, scores, selection), assumes the pod onto the chosen node in its cache so the
 * next cycle sees it, and binds it through `POST pods/NAME/binding` without blocking the next
 * cycle. An unschedulable pod gets `PodScheduled=False` reason `Unschedulable` with Kubernetes'
 * message and a FailedScheduling event, and is retried after a relevant cluster event or its
 * backoff. Before that, Kubernetes' DefaultPreemption runs (unless the profile disables it): when
 * deleting lower-priority pods on some node lets the pod fit, the pod is nominated to that node
 * (`status.nominatedNodeName`), the victims are deleted with their own grace period, and
 * lower-priority pods nominated there lose their nomination; nominated pods hold their room
 * against pods of lower or equal priority until they are bound. Every attempt produces a
 * {@link SchedulingDecision}.
 */
export class Scheduler {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  readonly profiles = new Map<string, Profile>();
  readonly informers: SharedInformerFactory;
  /** The most recent decisions, oldest first. */
  readonly decisions: SchedulingDecision[] = [];
  /** Pods waiting for the room their preemption makes. */
  readonly nominator = new Nominator();
  /** Totals since start. */
  readonly stats = { attempts: 0, scheduled: 0, unschedulable: 0, bindingFailures: 0, preemptions: 0, preemptionVictims: 0 };
  private readonly podInformer: Informer;
  private readonly nodeInformer: Informer;
  private readonly nsInformer: Informer;
  private readonly pdbInformer: Informer;
  private readonly pods: ResourceClient;
  /** One event recorder per scheduler name (the events' source component). */
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly bindings = new Set<Promise<void>>();
  private loop?: Promise<void>;
  private stopped = false;

  constructor(private readonly opts: SchedulerOptions) {
    const registry = opts.registry ?? defaultPluginRegistry();
    for (const cfg of opts.profiles ?? [{ schedulerName: DEFAULT_SCHEDULER_NAME }]) {
      if (this.profiles.has(cfg.schedulerName)) throw new Error(`duplicate profile with scheduler name "${cfg.schedulerName}"`);
      this.profiles.set(cfg.schedulerName, new Profile(cfg, opts.rng, registry));
    }
    const pluginEvents: Record<string, readonly ClusterEvent[]> = {};
    for (const p of this.profiles.values()) for (const pl of p.plugins()) if (pl.events) pluginEvents[pl.name] = pl.events;
    this.queue = new SchedulingQueue({ clock: opts.clock, podInitialBackoffMs: opts.podInitialBackoffMs, podMaxBackoffMs: opts.podMaxBackoffMs, pluginEvents });
    this.informers = opts.informers ?? new SharedInformerFactory(opts.client, { clock: opts.clock, onError: opts.onError });
    this.podInformer = this.informers.informerFor(PODS);
    this.nodeInformer = this.informers.informerFor(NODES);
    this.nsInformer = this.informers.informerFor(NAMESPACES);
    this.pdbInformer = this.informers.informerFor(PDBS);
    this.pods = opts.client.resource(PODS);
    this.nodeInformer.addEventHandler({
      onAdd: (n) => {
        this.cache.addOrUpdateNode(n);
        this.queue.moveAllToActiveOrBackoffQueue('NodeAdd');
      },
      onUpdate: (o, n) => {
        this.cache.addOrUpdateNode(n);
        if (nodeChangedForScheduling(o, n)) this.queue.moveAllToActiveOrBackoffQueue('NodeUpdate');
      },
      onDelete: (n) => {
        this.cache.removeNode(n.metadata.name);
        this.queue.moveAllToActiveOrBackoffQueue('NodeDelete');
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podAdded(p),
      onUpdate: (o, p) => this.podUpdated(o, p),
      onDelete: (p) => this.podDeleted(p),
    });
  }

  /** Whether this scheduler schedules the pod (its schedulerName names a profile). */
  responsibleFor(pod: any): boolean {
    return this.profiles.has(pod?.spec?.schedulerName || DEFAULT_SCHEDULER_NAME);
  }

  private podAdded(pod: any): void {
    if (pod.spec?.nodeName) {
      this.nominator.delete(pod);
      this.queue.delete(pod);
      this.cache.addOrUpdatePod(pod);
      if (!isTerminal(pod)) this.queue.moveAllToActiveOrBackoffQueue('AssignedPodAdd');
      return;
    }
    if (this.responsibleFor(pod) && !pod.metadata?.deletionTimestamp && !isTerminal(pod) && !this.cache.isAssumed(pod)) {
      this.nominator.update(undefined, pod);
      this.queue.add(pod);
    }
  }

  private podUpdated(old: any, pod: any): void {
    if (pod.spec?.nodeName) {
      const wasAssigned = !!old.spec?.nodeName;
      this.nominator.delete(pod);
      this.queue.delete(pod);
      this.cache.addOrUpdatePod(pod);
      if (!wasAssigned) this.queue.moveAllToActiveOrBackoffQueue('AssignedPodAdd');
      else if (isTerminal(pod) && !isTerminal(old)) this.queue.moveAllToActiveOrBackoffQueue('AssignedPodDelete');
      else if (JSON.stringify(old.metadata?.labels) !== JSON.stringify(pod.metadata?.labels)) this.queue.moveAllToActiveOrBackoffQueue('AssignedPodUpdate');
      return;
    }
    if (!this.responsibleFor(pod) || this.cache.isAssumed(pod)) return;
    if (pod.metadata?.deletionTimestamp || isTerminal(pod)) {
      this.nominator.delete(pod);
      this.queue.delete(pod);
    } else {
      this.nominator.update(old, pod);
      this.queue.update(old, pod);
    }
  }

  private podDeleted(pod: any): void {
    this.nominator.delete(pod);
    this.queue.delete(pod);
    if (pod.spec?.nodeName || this.cache.nodeOf(pod)) {
      this.cache.removePod(pod);
      this.queue.moveAllToActiveOrBackoffQueue('AssignedPodDelete');
    }
  }

  /** Starts informers, waits for their first lists, then schedules until `stop()`. */
  async start(): Promise<void> {
    this.informers.start();
    await this.informers.waitForCacheSync();
    if (this.stopped) return;
    this.queue.run();
    this.loop = this.runLoop();
  }

  /** Stops scheduling and the informers (if private); waits for in-flight bindings. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.close();
    await this.loop;
    await Promise.allSettled([...this.bindings]);
    await Promise.all([...this.recorders.values()].map((r) => r.flush()));
    if (!this.opts.informers) await this.informers.shutdown();
  }

  /** Resolves when no binding (nor preemption's API calls) is in flight. */
  async bindingsSettled(): Promise<void> {
    while (this.bindings.size > 0) await Promise.allSettled([...this.bindings]);
  }

  private async runLoop(): Promise<void> {
    while (!this.stopped) {
      const qpi = await this.queue.pop();
      if (!qpi) return;
      try {
        this.scheduleOne(qpi);
      } catch (err) {
        this.opts.onError?.(err);
        this.queue.addUnschedulableIfNotPresent(qpi, this.queue.cycle());
      }
      if (this.opts.yieldBetweenCycles) await this.opts.yieldBetweenCycles();
    }
  }

  private context(): PluginContext {
    return {
      allNodes: this.cache.list(),
      namespaceLabels: (ns) => this.nsInformer.store.get('', ns)?.metadata?.labels,
      // NOTE: without nominated pods (the usual case) filtering skips the per-node lookup.
      nominatedPodsOn: this.nominator.size > 0 ? (node) => this.nominator.podsOn(node) : undefined,
      podsWithRequiredAntiAffinity: this.cache.podsWithRequiredAntiAffinity,
    };
  }

  private record(d: SchedulingDecision): void {
    const max = this.opts.decisionHistory ?? 1000;
    if (max > 0) {
      this.decisions.push(d);
      if (this.decisions.length > max) this.decisions.splice(0, this.decisions.length - max);
    }
    this.opts.onDecision?.(d);
  }

  /** Runs one scheduling cycle for a popped pod (synchronous; binding continues in the background). */
  private scheduleOne(qpi: QueuedPodInfo): void {
    const cycle = this.queue.cycle();
    const cur = this.podInformer.store.get(qpi.pod.metadata?.namespace ?? '', qpi.pod.metadata?.name ?? '');
    if (!cur || cur.spec?.nodeName || cur.metadata?.deletionTimestamp || this.cache.isAssumed(cur) || !this.responsibleFor(cur)) {
      this.queue.done(qpi.key);
      return;
    }
    qpi.pod = cur;
    const schedulerName = cur.spec?.schedulerName || DEFAULT_SCHEDULER_NAME;
    const profile = this.profiles.get(schedulerName)!;
    const ctx = this.context();
    const result = profile.schedule(cur, ctx);
    this.stats.attempts++;
    const base = { time: this.opts.clock.now(), pod: qpi.key, schedulerName, attempt: qpi.attempts, totalNodes: result.totalNodes, evaluatedNodes: result.evaluatedNodes, feasibleNodes: result.feasibleNodes };
    if (!result.node) {
      this.stats.unschedulable++;
      let message = result.message;
      let preemption: SchedulingDecision['preemption'];
      let nominatedNodeName: string | null | undefined;
      if (profile.preemption && result.nodeFailures) {
        const out = preempt({
          pod: cur,
          profile,
          ctx,
          nodeFailures: result.nodeFailures,
          pdbs: this.pdbInformer.store.list(),
          nominatedNode: this.nominator.nodeOf(cur) ?? cur.status?.nominatedNodeName,
          rng: this.opts.rng,
          now: this.opts.clock.now(),
          config: profile.preemption,
        });
        if (out.status === 'Preempted') {
          const { node, victims, numPDBViolations } = out.candidate;
          const prio = podPriority(cur);
          const lowerNominated = this.nominator.podsOn(node).filter((pi) => pi.key !== qpi.key && podPriority(pi.pod) < prio);
          for (const pi of lowerNominated) this.nominator.delete(pi.pod);
          this.nominator.add(cur, node);
          nominatedNodeName = node;
          preemption = { node, victims: victims.map(podKey), numPDBViolations };
          this.stats.preemptions++;
          this.stats.preemptionVictims += victims.length;
          this.track(this.preparePreemption(cur, node, victims, lowerNominated.map((pi) => pi.pod), schedulerName));
        } else {
          message = `${message} ${out.message}`;
          if (out.status === 'NoCandidates' && (this.nominator.nodeOf(cur) || cur.status?.nominatedNodeName)) {
            this.nominator.delete(cur);
            nominatedNodeName = null;
          }
        }
      }
      this.record({ ...base, result: 'Unschedulable', message, ...(preemption ? { preemption } : {}) });
      this.queue.addUnschedulableIfNotPresent(qpi, cycle, result.unschedulablePlugins.length > 0 ? result.unschedulablePlugins : ['NoNodes']);
      void this.reportUnschedulable(cur, message ?? '', schedulerName, nominatedNodeName);
      return;
    }
    this.nominator.delete(cur);
    this.cache.assumePod(cur, result.node);
    this.queue.done(qpi.key);
    this.track(this.bind(cur, qpi, cycle, result, base, schedulerName));
  }

  private track(p: Promise<void>): void {
    this.bindings.add(p);
    void p.finally(() => this.bindings.delete(p));
  }

  /**
   * Kubernetes' prepareCandidate: each victim gets a DisruptionTarget condition and is deleted
   * with its own grace period (a Preempted event on it); lower-priority pods nominated to the node
   * lose their `status.nominatedNodeName`.
   */
  private async preparePreemption(pod: any, node: string, victims: any[], lowerNominated: any[], schedulerName: string): Promise<void> {
    const ignoreNotFound = (err: unknown) => {
      if (!isNotFound(err)) this.opts.onError?.(err);
    };
    const now = formatTime(this.opts.clock.now());
    await Promise.all(
      victims.map(async (v) => {
        const pods = this.pods.namespace(v.metadata.namespace);
        const condition = { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: `${schedulerName}: preempting to accommodate a higher priority pod`, lastTransitionTime: now };
        try {
          await pods.patch(v.metadata.name, { status: { conditions: [condition] } }, 'strategic', { subresource: 'status' });
          await pods.delete(v.metadata.name, { preconditions: { uid: v.metadata.uid } });
          this.recordEvent(v, 'Normal', 'Preempted', `Preempted by pod ${pod.metadata.uid} on node ${node}`, schedulerName, 'Preempting');
        } catch (err) {
          ignoreNotFound(err);
        }
      }),
    );
    await Promise.all(
      lowerNominated.map((p) =>
        this.pods
          .namespace(p.metadata.namespace)
          .patch(p.metadata.name, { status: { nominatedNodeName: null } }, 'merge', { subresource: 'status' })
          .then(() => undefined, ignoreNotFound),
      ),
    );
  }

  private async bind(pod: any, qpi: QueuedPodInfo, cycle: number, result: ScheduleResult, base: Omit<SchedulingDecision, 'result'>, schedulerName: string): Promise<void> {
    const node = result.node!;
    const ns = pod.metadata.namespace;
    try {
      await this.pods.namespace(ns).create(
        { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod.metadata.name, namespace: ns, uid: pod.metadata.uid }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
        { subresource: 'binding' },
      );
    } catch (err) {
      this.stats.bindingFailures++;
      this.cache.forgetPod(pod);
      this.record({ ...base, result: 'BindingFailed', node, scores: result.scores, totalScore: result.totalScore, message: (err as Error).message });
      if (!isNotFound(err) && !this.stopped) this.queue.addUnschedulableIfNotPresent(qpi, cycle);
      return;
    }
    this.stats.scheduled++;
    this.record({ ...base, result: 'Scheduled', node, scores: result.scores, totalScore: result.totalScore });
    this.recordEvent(pod, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${pod.metadata.name} to ${node}`, schedulerName);
  }

  /** Records FailedScheduling and sets PodScheduled=False; `nominatedNodeName` sets (string) or clears (null) the nomination. */
  private async reportUnschedulable(pod: any, message: string, schedulerName: string, nominatedNodeName?: string | null): Promise<void> {
    this.recordEvent(pod, 'Warning', 'FailedScheduling', message, schedulerName);
    const existing = (pod.status?.conditions ?? []).find((c: any) => c.type === 'PodScheduled');
    const nominationUnchanged = nominatedNodeName === undefined || (pod.status?.nominatedNodeName ?? null) === nominatedNodeName;
    if (nominationUnchanged && existing && existing.status === 'False' && existing.reason === 'Unschedulable' && existing.message === message) return;
    const condition = { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: formatTime(this.opts.clock.now()) };
    const status: Record<string, unknown> = { conditions: [condition] };
    if (nominatedNodeName !== undefined) status.nominatedNodeName = nominatedNodeName;
    try {
      await this.pods.namespace(pod.metadata.namespace).patch(pod.metadata.name, { status }, 'strategic', { subresource: 'status' });
    } catch (err) {
      if (!isNotFound(err)) this.opts.onError?.(err);
    }
  }

  private recordEvent(pod: any, type: EventType, reason: string, message: string, schedulerName: string, action = 'Scheduling'): void {
    if (this.opts.recordEvents === false) return;
    let recorder = this.recorders.get(schedulerName);
    if (!recorder) {
      recorder = new EventRecorder({
        client: this.opts.client,
        clock: this.opts.clock,
        component: schedulerName,
        reportingInstance: this.opts.identity ?? schedulerName,
        onError: (err) => this.opts.onError?.(err),
      });
      this.recorders.set(schedulerName, recorder);
    }
    recorder.event(pod, type, reason, message, action);
  }
}
