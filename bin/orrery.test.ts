import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { firstServiceIP } from '../core/apiserver/serve.ts';

const CLI = fileURLToPath(new URL('./orrery.ts', import.meta.url));

function run(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('orrery CLI', () => {
  it('a bad flag value fails with a message that names the flag', () => {
    for (const [flag, value] of [
      ['--secure-port', '70000'],
      ['--service-cluster-ip-range', '10.0.0.0/33'],
      ['--service-node-port-range', '5-3'],
      ['--event-ttl', 'soon'],
      ['--watch-history-window', '-1'],
    ]) {
      const r = run('serve', flag, value);
      assert.notEqual(r.status, 0, flag);
      assert.match(r.stderr, new RegExp(`${flag}.*${value.replace(/[.*/]/g, '\\$&')}`), flag);
    }
  });

  it('simulate names the flag of a bad value', () => {
    for (const [flag, value] of [
      ['--storage', 'etcd'],
      ['--realtime', '0'],
      ['--idle', 'forever'],
    ]) {
      const r = run('simulate', '--nodes', '1', '--pods', '0', flag, value);
      assert.notEqual(r.status, 0, flag);
      assert.match(r.stderr, new RegExp(`${flag}.*${value}`), flag);
    }
  });

  it('the launcher re-runs simulate (with a larger young generation), passing output and exit status through', () => {
    const launcher = fileURLToPath(new URL('./orrery.js', import.meta.url));
    const env = { ...process.env, NODE_OPTIONS: '' };
    const ok = spawnSync(process.execPath, [launcher, 'simulate', '--nodes', '2', '--pods', '2', '--seed', '1'], { encoding: 'utf8', timeout: 60_000, env });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout.trim().split('\n').at(-1)!).podsRunning, 2);
    const bad = spawnSync(process.execPath, [launcher, 'simulate', '--nodes', '0', '--pods', '1'], { encoding: 'utf8', timeout: 60_000, env });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--nodes/);
  });

  it('an unknown command is refused', () => {
    const r = run('fly');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /unknown command 'fly'/);
  });

  it('the kubernetes Service takes the first address of the service range', () => {
    assert.equal(firstServiceIP('10.0.0.0/24'), '10.0.0.1');
    assert.equal(firstServiceIP('10.96.0.0/12'), '10.96.0.1');
    assert.equal(firstServiceIP('192.168.7.130/25'), '192.168.7.129');
  });
});
