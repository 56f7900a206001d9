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
    const a = await runSimulation({ nodes: 3, pods: 12, seed: 'alpha', trace: true });
    const b = await runSimulation({ nodes: 3, pods: 12, seed: 'alpha', trace: true });
    const c = await runSimulation({ nodes: 3, pods: 12, seed: 'beta', trace: true });
    assert.ok(a.trace!.length > 12 * 3);
    assert.equal(a.trace!.join('\n'), b.trace!.join('\n'));
    assert.equal(a.virtualSeconds, b.virtualSeconds);
    assert.notEqual(a.trace!.join('\n'), c.trace!.join('\n'));
  });

  it('refuses impossible options, naming them', async () => {
    await assert.rejects(runSimulation({ nodes: 0, pods: 1, seed: 1 }), (e: unknown) => e instanceof SimulationInvalid && e.option === 'nodes');
    await assert.rejects(runSimulation({ nodes: 1, pods: 1, seed: 1, pullLatency: { dist: 'weird' } }), (e: unknown) => e instanceof SimulationInvalid && e.option === 'pullLatency');
  });
});
