import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { SchedulingQueue } from './queue.ts';

const mk = (name: string, priority?: number) => ({ metadata: { namespace: 'ns', name }, spec: priority === undefined ? {} : { priority } });

test('activeQ pops by priority, then by queue time', async () => {
  const clock = new FakeClock();
  const q = new SchedulingQueue({ clock });
  q.add(mk('low-early', 0));
  clock.step(10);
  q.add(mk('high', 100));
  clock.step(10);
  q.add(mk('low-late'));
  const order = [];
  for (let i = 0; i < 3; i++) order.push((await q.pop())!.pod.metadata.name);
  assert.deepEqual(order, ['high', 'low-early', 'low-late']);
});

test('backoff doubles from 1 s and is capped at 10 s', () => {
  const q = new SchedulingQueue({ clock: new FakeClock() });
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((a) => q.backoffDuration(a)), [1000, 2000, 4000, 8000, 10000, 10000]);
});

test('an unschedulable pod waits for an event its plugin cares about, then for its backoff', async () => {
  const clock = new FakeClock();
  const q = new SchedulingQueue({ clock, pluginEvents: { NodeResourcesFit: ['NodeAdd', 'AssignedPodDelete'] } });
  q.run();
  q.add(mk('p'));
  const p = (await q.pop())!;
  assert.equal(p.attempts, 1);
  q.addUnschedulableIfNotPresent(p, q.cycle(), ['NodeResourcesFit']);
  assert.equal(q.lengths().unschedulable, 1);
  q.moveAllToActiveOrBackoffQueue('AssignedPodAdd');
  assert.equal(q.lengths().unschedulable, 1, 'not an event NodeResourcesFit cares about');
  clock.step(200);
  q.moveAllToActiveOrBackoffQueue('NodeAdd');
  assert.deepEqual(q.lengths(), { active: 0, backoff: 1, unschedulable: 0, inFlight: 0 });
  clock.step(700);
  assert.equal(q.lengths().active, 0, 'still backing off at 0.9 s');
  clock.step(300);
  assert.equal(q.lengths().active, 1, 'backoff ended at 1 s, flushed by the 1 s tick');
  q.close();
});

test('a move request during the attempt sends the failed pod to backoffQ, not to unschedulable', async () => {
  const clock = new FakeClock();
  const q = new SchedulingQueue({ clock });
  q.add(mk('p'));
  const p = (await q.pop())!;
  const cycle = q.cycle();
  q.moveAllToActiveOrBackoffQueue('NodeAdd');
  q.addUnschedulableIfNotPresent(p, cycle, ['NodeResourcesFit']);
  assert.deepEqual(q.lengths(), { active: 0, backoff: 1, unschedulable: 0, inFlight: 0 });
});

test('pods stuck unschedulable for 5 minutes are retried by the periodic flush; status-only updates do not requeue', async () => {
  const clock = new FakeClock();
  const q = new SchedulingQueue({ clock });
  q.run();
  const pod = mk('p');
  q.add(pod);
  const p = (await q.pop())!;
  q.addUnschedulableIfNotPresent(p, q.cycle(), ['X']);
  q.update(pod, { ...pod, status: { conditions: [{ type: 'PodScheduled', status: 'False' }] } });
  assert.equal(q.lengths().unschedulable, 1);
  clock.step(4 * 60_000);
  assert.equal(q.lengths().unschedulable, 1);
  clock.step(90_000);
  assert.equal(q.lengths().active, 1);
  q.close();
});

test('a spec change of a parked pod moves it; pop waits for a pod and close releases waiters', async () => {
  const clock = new FakeClock();
  const q = new SchedulingQueue({ clock });
  const pod = mk('p');
  q.add(pod);
  const p = (await q.pop())!;
  q.addUnschedulableIfNotPresent(p, q.cycle(), ['X']);
  clock.step(5000);
  q.update(pod, { ...pod, spec: { nodeSelector: { a: 'b' } } });
  assert.equal(q.lengths().active, 1);
  await q.pop();
  const waiting = q.pop();
  q.add(mk('q'));
  assert.equal((await waiting)!.pod.metadata.name, 'q');
  const last = q.pop();
  q.close();
  assert.equal(await last, undefined);
});
