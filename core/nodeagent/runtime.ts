import { createHash } from 'node:crypto';
import type { Clock } from '../machinery/clock.ts';
import type { Rng } from '../machinery/rng.ts';
import { parseQuantity } from '../machinery/quantity.ts';

/**
 * A distribution of non-negative durations in milliseconds, drawn from an injected Rng. The
 * simulator's distributions (`sim/distributions.ts`) satisfy it; core never imports sim/.
 */
export interface Sampler {
  sample(rng: Rng): number;
}

/** A sampler that always returns `ms`. */
export function constantSampler(ms: number): Sampler {
  return { sample: () => ms };
}

/** How one run of a container ends: after `durationMs` (undefined: it runs until stopped) with `exitCode`. */
export interface ContainerRun {
  durationMs?: number;
  exitCode?: number;
}

/** The three container probes of Kubernetes. */
export type ProbeKind = 'startup' | 'liveness' | 'readiness';

/**
 * The outcome of one probe: `ok`, the failure `output` the kubelet puts in its Unhealthy event,
 * and how long the probe took (`latencyMs`, default 0; beyond the probe's `timeoutSeconds` it
 * counts as a timeout failure).
 */
export interface ProbeResult {
  ok: boolean;
  output?: string;
  latencyMs?: number;
}

/** The result of starting a container: its runtime id, or the reason it failed to start. */
export type StartResult = { ok: true; containerID: string } | { ok: false; reason: string; message: string };

/**
 * The container runtime a node agent drives (the CRI's role). Implementations decide pull and
 * start latency, start failures, how long containers run and how much memory they use.
 */
export interface ContainerRuntime {
  /** Whether `image` is in this node's image cache. */
  hasImage(image: string): boolean;
  /** Pulls `image` into the cache; resolves when the pull is done (rejects on a failed pull). */
  pullImage(image: string): Promise<void>;
  /** The cached images, in pull order. */
  listImages(): { names: string[]; sizeBytes: number }[];
  /** Optional: a number that changes whenever {@link listImages} would answer differently (lets the agent skip rebuilding node status). */
  imagesGeneration?(): number;
  /** The image id (`repo@sha256:…`) the runtime reports for `image`. */
  imageID(image: string): string;
  /** Creates and starts a container; resolves after the start latency. */
  startContainer(pod: any, container: any, attempt: number): Promise<StartResult>;
  /** How this run of the container ends (decided when it starts). */
  containerRun(pod: any, container: any, attempt: number): ContainerRun;
  /** How long the container takes to stop after SIGTERM, in ms. */
  stopDuration(pod: any, container: any): number;
  /** Memory the running container uses now, in bytes. */
  memoryUsage(pod: any, container: any): number;
  /** Runs one probe of a running container (`attempt` = its restart count). Without it, probes succeed. */
  probe?(pod: any, container: any, kind: ProbeKind, attempt: number): ProbeResult;
}

/** Options of a {@link SimulatedRuntime}. */
export interface SimulatedRuntimeOptions {
  clock: Clock;
  rng: Rng;
  /** Time one image pull takes. */
  pullLatency: Sampler;
  /** Time from "create container" to running. */
  startLatency: Sampler;
  /** Probability in [0, 1] that a start fails (RunContainerError / StartError). Default 0. */
  startFailureProbability?: number;
  /** Time a container needs to stop after SIGTERM. Default 0. */
  stopLatency?: Sampler;
  /**
   * How a run of a container ends. Default: an app container runs until stopped; an init
   * container exits 0 after `initContainerRunDuration`.
   */
  run?: (pod: any, container: any, attempt: number) => ContainerRun | undefined;
  /** How long an init container runs before it exits 0 (when `run` leaves it undecided). Default 1 s. */
  initContainerRunDuration?: Sampler;
  /** Decides one probe's outcome; `undefined` falls back to `probeFailureProbability`. */
  probe?: (pod: any, container: any, kind: ProbeKind, attempt: number) => ProbeResult | undefined;
  /** Probability in [0, 1] that a probe fails (when `probe` leaves it undecided). Default 0: probes succeed. */
  probeFailureProbability?: number;
  /** A container's memory usage in bytes. Default: its memory request, else 0. */
  memoryUsage?: (pod: any, container: any) => number;
  /** Images present before the agent starts. */
  preloadedImages?: string[];
  /** Reported size of each cached image. Default 100 MiB. */
  imageSizeBytes?: (image: string) => number;
}

const DEFAULT_INIT_RUN = constantSampler(1000);
const OK: ProbeResult = { ok: true };

/** The output a failed probe of this handler type reports, as the kubelet's probers word it. */
export function probeFailureOutput(container: any, kind: ProbeKind): string {
  const probe = container?.[`${kind}Probe`] ?? {};
  if (probe.httpGet) return 'HTTP probe failed with statuscode: 500';
  if (probe.tcpSocket) return `dial tcp: connect: connection refused`;
  if (probe.grpc) return 'service unhealthy (responded with "NOT_SERVING")';
  return 'command failed with exit code 1';
}

/** A repository-qualified image name as containerd reports it (`nginx:1.25` → `docker.io/library/nginx:1.25`). */
export function normalizeImage(image: string): string {
  let name = image;
  const at = name.indexOf('@');
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (at < 0 && !(colon > lastSlash)) name += ':latest';
  const first = name.split('/')[0]!;
  if (!name.includes('/')) return `docker.io/library/${name}`;
  if (!first.includes('.') && !first.includes(':') && first !== 'localhost') return `docker.io/${name}`;
  return name;
}

/**
 * A simulated container runtime for one node: image pulls, container starts and stops take
 * sampled time on the injected clock; starts fail with `startFailureProbability`; every random
 * draw comes from the injected Rng, so a seeded run repeats exactly. Pulled images stay cached.
 */
export class SimulatedRuntime implements ContainerRuntime {
  private readonly images = new Map<string, number>();
  private readonly opts: SimulatedRuntimeOptions;
  /** Pulls done so far, in order (for measurements and tests). */
  readonly pulls: string[] = [];

  constructor(opts: SimulatedRuntimeOptions) {
    this.opts = opts;
    for (const img of opts.preloadedImages ?? []) this.images.set(normalizeImage(img), this.sizeOf(img));
  }

  private sizeOf(image: string): number {
    return this.opts.imageSizeBytes?.(image) ?? 100 * 1024 * 1024;
  }

  hasImage(image: string): boolean {
    return this.images.has(normalizeImage(image));
  }

  async pullImage(image: string): Promise<void> {
    const ms = this.opts.pullLatency.sample(this.opts.rng);
    if (ms > 0) await this.opts.clock.sleep(ms);
    this.images.set(normalizeImage(image), this.sizeOf(image));
    this.pulls.push(image);
  }

  /** The number of cached images: images are only ever added, so it changes with the list. */
  imagesGeneration(): number {
    return this.images.size;
  }

  listImages(): { names: string[]; sizeBytes: number }[] {
    return [...this.images].map(([name, sizeBytes]) => ({ names: [this.imageID(name), name], sizeBytes }));
  }

  imageID(image: string): string {
    const name = normalizeImage(image);
    const repo = name.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
    return `${repo}@sha256:${createHash('sha256').update(name).digest('hex')}`;
  }

  async startContainer(_pod: any, _container: any, _attempt: number): Promise<StartResult> {
    const ms = this.opts.startLatency.sample(this.opts.rng);
    const p = this.opts.startFailureProbability ?? 0;
    const fails = p > 0 && this.opts.rng.next() < p;
    let id = '';
    for (let i = 0; i < 4; i++) id += this.opts.rng.uuid().replace(/-/g, '');
    if (ms > 0) await this.opts.clock.sleep(ms);
    if (fails) return { ok: false, reason: 'StartError', message: 'failed to create containerd task: simulated start failure' };
    return { ok: true, containerID: `containerd://${id.slice(0, 64)}` };
  }

  containerRun(pod: any, container: any, attempt: number): ContainerRun {
    const run = this.opts.run?.(pod, container, attempt);
    if (run) return run;
    const name = container?.name;
    if (name !== undefined && pod?.spec?.initContainers?.some((c: any) => c.name === name)) {
      return { durationMs: (this.opts.initContainerRunDuration ?? DEFAULT_INIT_RUN).sample(this.opts.rng), exitCode: 0 };
    }
    return {};
  }

  probe(pod: any, container: any, kind: ProbeKind, attempt: number): ProbeResult {
    const r = this.opts.probe?.(pod, container, kind, attempt);
    if (r) return r.ok || r.output !== undefined ? r : { ...r, output: probeFailureOutput(container, kind) };
    const p = this.opts.probeFailureProbability ?? 0;
    if (p > 0 && this.opts.rng.next() < p) return { ok: false, output: probeFailureOutput(container, kind) };
    return OK;
  }

  stopDuration(_pod: any, _container: any): number {
    return this.opts.stopLatency ? this.opts.stopLatency.sample(this.opts.rng) : 0;
  }

  memoryUsage(pod: any, container: any): number {
    if (this.opts.memoryUsage) return this.opts.memoryUsage(pod, container);
    const req = container?.resources?.requests?.memory;
    return req ? Number(parseQuantity(req).valueInt()) : 0;
  }
}
