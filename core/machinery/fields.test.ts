import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeFieldValue, fieldSelectorFromSet, parseFieldSelector, unescapeFieldValue } from './fields.ts';
import { SelectorParseError } from './labels.ts';

test('terms with =, == and != are ANDed and sorted', () => {
  const sel = parseFieldSelector('status.phase!=Running,spec.nodeName==n1,metadata.name=web');
  assert.deepEqual(sel.requirements, [
    { field: 'metadata.name', operator: '=', value: 'web' },
    { field: 'spec.nodeName', operator: '=', value: 'n1' },
    { field: 'status.phase', operator: '!=', value: 'Running' },
  ]);
  assert.equal(sel.toString(), 'metadata.name=web,spec.nodeName=n1,status.phase!=Running');
});

test('escaped commas, equals and backslashes stay in the value', () => {
  const sel = parseFieldSelector('a=b\\,c,d!=e\\=f,g=h\\\\i');
  assert.deepEqual(sel.requirements, [
    { field: 'a', operator: '=', value: 'b,c' },
    { field: 'd', operator: '!=', value: 'e=f' },
    { field: 'g', operator: '=', value: 'h\\i' },
  ]);
  assert.equal(sel.toString(), 'a=b\\,c,d!=e\\=f,g=h\\\\i');
  assert.equal(parseFieldSelector(sel.toString()).toString(), sel.toString());
});

test('escape and unescape are inverse', () => {
  for (const v of ['', 'plain', 'a,b', 'x=y', 'back\\slash', ',=\\', 'ünïcode!']) {
    assert.equal(unescapeFieldValue(escapeFieldValue(v)), v, v);
  }
  assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
});

test('the first operator splits a term; the value may contain !', () => {
  assert.deepEqual(parseFieldSelector('x=!y').requirements, [{ field: 'x', operator: '=', value: '!y' }]);
  assert.deepEqual(parseFieldSelector('a!b=c').requirements, [{ field: 'a!b', operator: '=', value: 'c' }]);
  assert.deepEqual(parseFieldSelector('a=').requirements, [{ field: 'a', operator: '=', value: '' }]);
});

test('empty selectors and empty terms', () => {
  assert.equal(parseFieldSelector('').empty(), true);
  assert.equal(parseFieldSelector(',,').empty(), true);
  assert.equal(parseFieldSelector('a=b,').requirements.length, 1);
  assert.equal(parseFieldSelector('').matches(() => 'x'), true);
});

test('errors are worded as Kubernetes words them', () => {
  const cases: [string, string][] = [
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['z,a=b', "invalid selector: 'z,a=b'; can't understand 'z'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a==b,c', "invalid selector: 'a==b,c'; can't understand 'c'"],
    ['a=\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=\\!', 'invalid field selector: invalid escape sequence: \\!'],
  ];
  for (const [s, want] of cases) {
    assert.throws(() => parseFieldSelector(s), (e: Error) => e instanceof SelectorParseError && e.message === want, s);
  }
});

test('matching: a missing field reads as the empty string', () => {
  const fields: Record<string, string> = { 'status.phase': 'Pending', 'spec.nodeName': '' };
  const get = (f: string) => fields[f];
  assert.equal(parseFieldSelector('status.phase=Pending').matches(get), true);
  assert.equal(parseFieldSelector('status.phase!=Pending').matches(get), false);
  assert.equal(parseFieldSelector('spec.nodeName=').matches(get), true);
  assert.equal(parseFieldSelector('spec.nodeName!=').matches(get), false);
  assert.equal(parseFieldSelector('other=').matches(get), true);
  assert.equal(parseFieldSelector('other!=x').matches(get), true);
  assert.equal(parseFieldSelector('status.phase=Pending,other=x').matches(get), false);
});

test('requiresExactMatch, transform and fromSet', () => {
  const sel = parseFieldSelector('spec.host=n1,status.phase!=Failed');
  assert.equal(sel.requiresExactMatch('spec.host'), 'n1');
  assert.equal(sel.requiresExactMatch('status.phase'), undefined);
  const t = sel.transform((field, value) => ({ field: field === 'spec.host' ? 'spec.nodeName' : field, value }));
  assert.equal(t.toString(), 'spec.nodeName=n1,status.phase!=Failed');
  assert.equal(sel.toString(), 'spec.host=n1,status.phase!=Failed');
  assert.equal(sel.transform(() => ({ field: '', value: '' })).empty(), true);
  assert.equal(fieldSelectorFromSet({ 'metadata.name': 'a,b' }).toString(), 'metadata.name=a\\,b');
});
