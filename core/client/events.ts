import type { Clock } from '../machinery/clock.ts';
import { isAlreadyExists, isNotFound, type Client, type ResourceClient } from './client.ts';
import { TokenBucketRateLimiter } from './ratelimit.ts';
import { fnv32 } from '../machinery/hash.ts';
import { formatTime } from '../machinery/time.ts';

/** Event types, as core/v1 defines them. */
export type EventType = 'Normal' | 'Warning';

/** A core/v1 ObjectReference: what an Event is about (`fieldPath` names a container: `spec.containers{app}`). */
export interface ObjectReference {
  apiVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/**
 * The ObjectReference of an API object (its apiVersion/kind as given, else from `defaults`), with
 * an optional `fieldPath`. Never throws; missing fields stay out of the reference.
 */
export function referenceTo(obj: any, fieldPath?: string, defaults: { apiVersion?: string; kind?: string } = {}): ObjectReference {
  const m = obj?.metadata ?? {};
  const ref: ObjectReference = { kind: obj?.kind ?? defaults.kind ?? '', name: m.name ?? '' };
  const apiVersion = obj?.apiVersion ?? defaults.apiVersion;
  if (apiVersion) ref.apiVersion = apiVersion;
  if (m.namespace) ref.namespace = m.namespace;
  if (m.uid) ref.uid = m.uid;
  if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  if (fieldPath) ref.fieldPath = fieldPath;
  return ref;
}

/** Options of an {@link EventRecorder}. */
export interface EventRecorderOptions {
  client: Client;
  clock: Clock;
  /** `source.component` and `reportingComponent` (`kubelet`, `default-scheduler`). */
  component: string;
  /** `source.host` (the node name, for a kubelet). */
  host?: string;
  /** `reportingInstance`. Default: `<component>-<host>` when a host is given, else the component. */
  reportingInstance?: string;
  /**
   * Sustained events per second (the kubelet's `eventRecordQPS`); 0 or undefined means unlimited,
   * as in Kubernetes. Events over the limit are dropped and counted, never queued.
   */
  qps?: number;
  /** Bucket size with `qps` (the kubelet's `eventBurst`); at least 1. Default 10. */
  burst?: number;
  /** `false` turns recording off: `event()` returns at once and writes nothing. Default true. */
  record?: boolean;
  /** Distinct events remembered for correlation (least recently seen forgotten first). Default 4096. */
  cacheSize?: number;
  /** Writes waiting to be sent at most; further new events are dropped and counted. Default 1000. */
  maxPending?: number;
  /** Told about failed writes (never thrown to the caller). */
  onError?(err: unknown): void;
}

/** What a recorder did so far. */
export interface EventRecorderStats {
  /** `event()` calls accepted (not dropped). */
  recorded: number;
  /** Events created (POST). */
  created: number;
  /** Repeats written as a count/lastTimestamp PATCH. */
  patched: number;
  /** Events dropped by the rate limit or a full pending queue. */
  dropped: number;
  /** Writes that failed (reported through `onError`). */
  failed: number;
}

interface Entry {
  key: string;
  namespace: string;
  name: string;
  event: any;
  count: number;
  written: number;
  lastTimestamp: string;
  created: boolean;
  queued: boolean;
}

const EVENTS = { group: '', version: 'v1', resource: 'events' };

const timestamp = formatTime;


/**
 * Records core/v1 Events the way client-go's record package does, on an injected clock:
 *
 * - `event(obj, type, reason, message)` never blocks and never throws; writes go out in the
 *   background, one at a time, in call order.
 * - Correlation (client-go's EventCorrelator/EventLogger): an event with the same source,
 *   involvedObject, type, reason and message as a remembered one is written as a PATCH of `count`
 *   and `lastTimestamp` of the first Event, not as a new Event. Repeats that arrive while an
 *   earlier write of that Event is still pending are coalesced into one write with the final count.
 *   A PATCH that finds the Event gone (TTL) re-creates it.
 * - Names are `<object name>.<hex>` where the hex is derived from the clock (nanoseconds, as
 *   client-go's `UnixNano`) plus a per-recorder sequence offset by a hash of the reporting
 *   instance — deterministic under the simulator; an AlreadyExists retries once with the next
 *   sequence number.
 * - Rate limit: with `qps` > 0 a token bucket (`qps`, `burst`) on the clock; an event without a
 *   token is dropped and counted in `stats.dropped`. So is a new event when `maxPending` writes
 *   are already waiting. Nothing waits for tokens, so nothing is queued forever.
 */
export class EventRecorder {
  /** Counters of what this recorder did. */
  readonly stats: EventRecorderStats = { recorded: 0, created: 0, patched: 0, dropped: 0, failed: 0 };
  /** Whether `event()` records anything. */
  readonly enabled: boolean;
  private readonly o: EventRecorderOptions;
  private readonly events?: ResourceClient;
  private readonly limiter?: TokenBucketRateLimiter;
  private readonly cache = new Map<string, Entry>();
  private readonly cacheSize: number;
  private readonly maxPending: number;
  private readonly pending: Entry[] = [];
  private readonly instance: string;
  private readonly seqBase: number;
  private seq = 0;
  private pump?: Promise<void>;

  constructor(opts: EventRecorderOptions) {
    this.o = opts;
    this.enabled = opts.record !== false;
    this.instance = opts.reportingInstance ?? (opts.host ? `${opts.component}-${opts.host}` : opts.component);
    this.seqBase = fnv32(this.instance) % 1_000_000;
    this.cacheSize = opts.cacheSize ?? 4096;
    this.maxPending = opts.maxPending ?? 1000;
    if (!this.enabled) return;
    this.events = opts.client.resource(EVENTS);
    if (opts.qps && opts.qps > 0) this.limiter = new TokenBucketRateLimiter({ qps: opts.qps, burst: Math.max(1, Math.floor(opts.burst ?? 10)), clock: opts.clock });
  }

  /**
   * Records that `reason` happened to `obj` (an API object with metadata, or an ObjectReference);
   * `action` (e.g. `Scheduling`) is what the reporting component did.
   * Returns at once; the write happens in the background and failures go to `onError`.
   */
  event(obj: any, type: EventType, reason: string, message: string, action?: string): void {
    if (!this.enabled) return;
    try {
      this.record(obj.metadata ? referenceTo(obj) : (obj as ObjectReference), type, reason, message, action);
    } catch (err) {
      this.stats.failed++;
      this.o.onError?.(err);
    }
  }

  /** Resolves once every accepted event has been written (or has failed). For tests and shutdown. */
  async flush(): Promise<void> {
    while (this.pump) await this.pump;
  }

  private record(ref: ObjectReference, type: EventType, reason: string, message: string, action: string | undefined): void {
    if (this.limiter && !this.limiter.tryAccept()) {
      this.stats.dropped++;
      return;
    }
    const now = this.o.clock.now();
    const ts = timestamp(now);
    const key = [this.o.component, this.o.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', ref.apiVersion ?? '', ref.fieldPath ?? '', type, reason, message].join('\u0000');
    let e = this.cache.get(key);
    if (e) {
      this.cache.delete(key);
      this.cache.set(key, e);
      e.count++;
      e.lastTimestamp = ts;
      this.stats.recorded++;
      if (!e.queued) this.enqueue(e);
      return;
    }
    if (this.pending.length >= this.maxPending) {
      this.stats.dropped++;
      return;
    }
    const namespace = ref.namespace || 'default';
    e = {
      key,
      namespace,
      name: this.name(ref.name, now),
      event: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { namespace },
        involvedObject: { ...ref },
        reason,
        message,
        source: this.o.host ? { component: this.o.component, host: this.o.host } : { component: this.o.component },
        firstTimestamp: ts,
        type,
        reportingComponent: this.o.component,
        reportingInstance: this.instance,
        ...(action ? { action } : {}),
      },
      count: 1,
      written: 0,
      lastTimestamp: ts,
      created: false,
      queued: false,
    };
    this.cache.set(key, e);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    this.stats.recorded++;
    this.enqueue(e);
  }

  private name(objName: string, now: number): string {
    const n = BigInt(Math.floor(now)) * 1_000_000n + BigInt((this.seqBase + this.seq++) % 1_000_000);
    return `${objName}.${n.toString(16)}`;
  }

  private enqueue(e: Entry): void {
    if (!e.created && !e.queued && this.pending.length >= this.maxPending) {
      this.stats.dropped++;
      return;
    }
    e.queued = true;
    this.pending.push(e);
    if (!this.pump) {
      this.pump = this.drain().finally(() => {
        this.pump = undefined;
      });
    }
  }

  private async drain(): Promise<void> {
    await Promise.resolve();
    for (let e = this.pending.shift(); e; e = this.pending.shift()) {
      e.queued = false;
      try {
        await this.write(e);
      } catch (err) {
        this.stats.failed++;
        if (this.cache.get(e.key) === e) this.cache.delete(e.key);
        this.o.onError?.(err);
      }
    }
  }

  private body(e: Entry): any {
    return { ...e.event, metadata: { ...e.event.metadata, name: e.name }, count: e.count, lastTimestamp: e.lastTimestamp };
  }

  private async create(e: Entry): Promise<void> {
    const count = e.count;
    try {
      await this.events!.namespace(e.namespace).create(this.body(e), { discardResult: true });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      e.name = this.name(e.event.involvedObject.name, this.o.clock.now());
      await this.events!.namespace(e.namespace).create(this.body(e), { discardResult: true });
    }
    e.created = true;
    e.written = count;
    this.stats.created++;
  }

  private async write(e: Entry): Promise<void> {
    if (!e.created) return this.create(e);
    if (e.written === e.count) return;
    const count = e.count;
    try {
      await this.events!.namespace(e.namespace).patch(e.name, { count, lastTimestamp: e.lastTimestamp }, 'strategic', { discardResult: true });
      e.written = count;
      this.stats.patched++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      e.created = false;
      await this.create(e);
    }
  }
}
