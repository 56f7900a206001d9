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
