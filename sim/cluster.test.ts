import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSimulation, SimulationInvalid } from './cluster.ts';

describe('simulated cluster', () => {
  it('schedules every pod and runs it on the simulated nodes', async () => {
    const s = await runSimulation({ nodes: 4, pods: 20, seed: 7, trace: true });
    assert.equal(s.podsRunning, 20);
    assert.equal(s.podsScheduled, 20);
    const nodes = new Set(s.trace!.filter((l) => l.includes(' scheduled ')).map((l) => l.split(' ').at(-1)));
    assert.equal(nodes.size, 4, 'the scheduler spread the pods over every node');
    assert.ok(s.virtualSeconds > 10, 'pods start after the nodes registered and images were pulled');
  });

  it('the same seed gives a byte-identical trace; another seed a different one', async () => {
    // NOTE: with shared objects frozen, a component that mutates a watched object fails the run.
    const a = await runSimulation({ nodes: 3, pods: 12, seed: 'alpha', trace: true, freezeShared: true });
    const b = await runSimulation({ nodes: 3, pods: 12, seed: 'alpha', trace: true });
    const c = await runSimulation({ nodes: 3, pods: 12, seed: 'beta', trace: true });
    assert.ok(a.trace!.length > 12 * 3);
    assert.equal(a.trace!.join('\n'), b.trace!.join('\n'));
    assert.equal(a.virtualSeconds, b.virtualSeconds);
    assert.notEqual(a.trace!.join('\n'), c.trace!.join('\n'));
  });

  it('the SQLite store and the in-memory store, decoded objects and JSON text give the same trace; leaving out Events changes the run, not the outcome', async () => {
    const memory = await runSimulation({ nodes: 3, pods: 8, seed: 'store', trace: true, freezeShared: true });
    const sqlite = await runSimulation({ nodes: 3, pods: 8, seed: 'store', trace: true, storage: 'sqlite' });
    assert.equal(memory.trace!.join('\n'), sqlite.trace!.join('\n'));
    // JSON text between the clients and the API server, as over HTTP, instead of decoded objects.
    const text = await runSimulation({ nodes: 3, pods: 8, seed: 'store', trace: true, decodedObjects: false });
    assert.equal(memory.trace!.join('\n'), text.trace!.join('\n'));
    assert.equal(memory.events, sqlite.events);
    // Untraced, watch events cross the network without their JSON frames: the run is the same.
    const untraced = await runSimulation({ nodes: 3, pods: 8, seed: 'store', freezeShared: true });
    assert.deepEqual([untraced.events, untraced.virtualSeconds, untraced.podsRunning], [memory.events, memory.virtualSeconds, memory.podsRunning]);
    const quiet = await runSimulation({ nodes: 3, pods: 8, seed: 'store', trace: true, events: false });
    assert.equal(quiet.podsRunning, 8);
    assert.ok(quiet.events < memory.events, `${quiet.events} simulator events without Kubernetes Events, ${memory.events} with`);
  });

  it('refuses impossible options, naming them', async () => {
    await assert.rejects(runSimulation({ nodes: 0, pods: 1, seed: 1 }), (e: unknown) => e instanceof SimulationInvalid && e.option === 'nodes');
    await assert.rejects(runSimulation({ nodes: 1, pods: 1, seed: 1, pullLatency: { dist: 'weird' } }), (e: unknown) => e instanceof SimulationInvalid && e.option === 'pullLatency');
    await assert.rejects(runSimulation({ nodes: 1, pods: 1, seed: 1, realtime: 0 }), (e: unknown) => e instanceof SimulationInvalid && e.option === 'realtime');
    await assert.rejects(runSimulation({ nodes: 1, pods: 1, seed: 1, storage: 'etcd' as 'memory' }), (e: unknown) => e instanceof SimulationInvalid && e.option === 'storage');
  });
});
