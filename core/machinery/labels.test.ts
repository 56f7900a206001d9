import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelSelector, newRequirement, parseLabelSelector, selectorFromLabelSelector, selectorFromSet, SelectorParseError } from './labels.ts';

const QUALIFIED_NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function parseError(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e) {
    assert.ok(e instanceof SelectorParseError, `${s}: not a SelectorParseError`);
    return e.message;
  }
  assert.fail(`${JSON.stringify(s)} parsed but should not`);
}

test('good selectors parse and print back without spaces (Kubernetes TestSelectorParse)', () => {
  for (const s of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5']) {
    assert.equal(parseLabelSelector(s).toString(), s.replaceAll(' ', ''), s);
  }
});

test('bad selectors are rejected', () => {
  for (const s of ['x=a||y=b', 'x==a==b', '!x=a', 'x<a', 'x in (a b)', 'a in b', 'x,', ',x', '!', 'x y', '(x)', 'x=(a)']) {
    assert.throws(() => parseLabelSelector(s), SelectorParseError, s);
  }
});

test('parse errors carry Kubernetes messages', () => {
  const cases: [string, string][] = [
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['x y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['-app=x', `unable to parse requirement: <nil>: Invalid value: "-app": ${QUALIFIED_NAME_PART}`],
    ['app=-x', `unable to parse requirement: values[0][app]: Invalid value: "-x": ${LABEL_VALUE_MSG}`],
  ];
  for (const [s, want] of cases) assert.equal(parseError(s), want, s);
});

test('tricky selector: a in (b,c),!d,e!=f', () => {
  const sel = parseLabelSelector('a in (b,c),!d,e!=f');
  assert.deepEqual(
    sel.requirements.map((r) => [r.key, r.operator, r.values]),
    [
      ['a', 'in', ['b', 'c']],
      ['d', '!', []],
      ['e', '!=', ['f']],
    ],
  );
  const cases: [Record<string, string> | undefined, boolean][] = [
    [{ a: 'b' }, true],
    [{ a: 'c', e: 'g' }, true],
    [{ a: 'c', e: 'f' }, false],
    [{ a: 'b', d: '' }, false],
    [{ a: 'x' }, false],
    [{}, false],
    [undefined, false],
  ];
  for (const [labels, want] of cases) assert.equal(sel.matches(labels), want, JSON.stringify(labels));
});

test('matching follows Kubernetes TestSelectorMatches', () => {
  const yes: [string, Record<string, string>][] = [
    ['', { x: 'y' }],
    ['x=y', { x: 'y' }],
    ['x=y,z=w', { x: 'y', z: 'w' }],
    ['x!=y,z!=w', { x: 'z', z: 'a' }],
    ['notin=in', { notin: 'in' }],
    ['x', { x: 'z' }],
    ['!x', { y: 'z' }],
    ['x>1', { x: '2' }],
    ['x<1', { x: '0' }],
    ['x<1', { x: '-5' }],
    ['x==y', { x: 'y' }],
    ['x notin (a,b)', { y: 'a' }],
    ['x in (a,b)', { x: 'b' }],
  ];
  const no: [string, Record<string, string>][] = [
    ['x=z', {}],
    ['x=y', { x: 'z' }],
    ['x=y,z=w', { x: 'w', z: 'w' }],
    ['x!=y,z!=w', { x: 'z', z: 'w' }],
    ['x', { y: 'z' }],
    ['!x', { x: 'z' }],
    ['x>1', { x: '0' }],
    ['x>1', { x: '1' }],
    ['x>1', { x: 'v2' }],
    ['x>1', {}],
    ['x<1', { x: '2' }],
    ['x notin (a,b)', { x: 'a' }],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }],
  ];
  for (const [s, labels] of yes) assert.equal(parseLabelSelector(s).matches(labels), true, `${s} ${JSON.stringify(labels)}`);
  for (const [s, labels] of no) assert.equal(parseLabelSelector(s).matches(labels), false, `${s} ${JSON.stringify(labels)}`);
});

test('whitespace: spaces, tabs, CR and newlines separate tokens', () => {
  assert.equal(parseLabelSelector('foo  in\t (abc)').toString(), 'foo in (abc)');
  assert.equal(parseLabelSelector('x notin\n (abc)').toString(), 'x notin (abc)');
  assert.equal(parseLabelSelector('\rx').toString(), 'x');
  assert.equal(parseLabelSelector('  a = b ,  c  ').toString(), 'a=b,c');
  assert.equal(parseLabelSelector('0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)').toString(), '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)');
});

test('in () is the set holding the empty value, as in Kubernetes; empty entries count as values', () => {
  const sel = parseLabelSelector('x in ()');
  assert.deepEqual(sel.requirements[0].values, ['']);
  assert.equal(sel.matches({ x: '' }), true);
  assert.equal(sel.matches({ x: 'a' }), false);
  assert.equal(sel.matches({}), false);
  assert.deepEqual(parseLabelSelector('x in (abc,)').requirements[0].values, ['', 'abc']);
  assert.deepEqual(parseLabelSelector('x notin (abc,,def)').requirements[0].values, ['', 'abc', 'def']);
  assert.equal(parseLabelSelector('x notin (abc,def),bar,z in (),w').toString(), 'bar,w,x notin (abc,def),z in ()');
});

test('requirements are sorted by key, so parsing is deterministic', () => {
  assert.equal(parseLabelSelector('x=a,a=x').toString(), parseLabelSelector('a=x,x=a').toString());
  assert.equal(parseLabelSelector('x=a,a=x').toString(), 'a=x,x=a');
});

test('empty selector matches everything, including objects without labels', () => {
  const sel = parseLabelSelector('');
  assert.equal(sel.empty(), true);
  assert.equal(sel.matches(undefined), true);
  assert.equal(sel.matches({ a: 'b' }), true);
  assert.equal(parseLabelSelector('a').empty(), false);
});

test('label keys are validated: 63-char name part, 253-char prefix, one slash', () => {
  const n63 = 'a'.repeat(63);
  const prefix253 = Array.from({ length: 4 }, () => 'b'.repeat(63)).join('.').slice(0, 253);
  assert.equal(prefix253.length, 253);
  assert.doesNotThrow(() => parseLabelSelector(`${n63}=v`));
  assert.doesNotThrow(() => parseLabelSelector(`${prefix253}/${n63}`));
  assert.equal(parseError(`${n63}a`), `unable to parse requirement: <nil>: Invalid value: "${n63}a": name part must be no more than 63 characters`);
  assert.match(parseError(`${prefix253}b/x`), /prefix part must be no more than 253 characters/);
  assert.match(parseError('Example.com/x'), /prefix part a lowercase RFC 1123 subdomain/);
  assert.doesNotThrow(() => parseLabelSelector('example.com/UPPER_case.Key'));
  assert.throws(() => parseLabelSelector('a/b/c'), /a qualified name must consist of/);
  assert.throws(() => parseLabelSelector(`k=${'v'.repeat(64)}`), /must be no more than 63 characters/);
});

test('requiresExactMatch reports a pinned value', () => {
  const sel = parseLabelSelector('app=web,tier in (db),x in (a,b),y!=z');
  assert.equal(sel.requiresExactMatch('app'), 'web');
  assert.equal(sel.requiresExactMatch('tier'), 'db');
  assert.equal(sel.requiresExactMatch('x'), undefined);
  assert.equal(sel.requiresExactMatch('y'), undefined);
  assert.equal(sel.requiresExactMatch('nope'), undefined);
});

test('labels inherited from Object.prototype do not count as present', () => {
  assert.equal(parseLabelSelector('constructor').matches({}), false);
  assert.equal(parseLabelSelector('!toString').matches({}), true);
  assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'constructor' }] }), SelectorParseError);
});

test('newRequirement aggregates all errors as Kubernetes does', () => {
  assert.throws(
    () => newRequirement('-x', 'gt', ['a']),
    (e: Error) =>
      e instanceof SelectorParseError &&
      e.message ===
        `[key: Invalid value: "-x": ${QUALIFIED_NAME_PART}, values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer]`,
  );
  assert.throws(() => newRequirement('x', '=', ['a', 'b']), { message: 'values: Invalid value: []string{"a", "b"}: exact-match compatibility requires one single value' });
  assert.throws(() => newRequirement('x', 'bogus' as never, []), {
    message: 'operator: Unsupported value: "bogus": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
  });
  assert.throws(() => newRequirement('x'.repeat(254), 'exists', []));
  assert.deepEqual(newRequirement('y', 'gt', ['1']).values, ['1']);
});

test('selectorFromLabelSelector: null matches nothing, {} matches everything', () => {
  const nothing = selectorFromLabelSelector(null);
  assert.equal(nothing.matches({}), false);
  assert.equal(nothing.matches({ a: 'b' }), false);
  assert.equal(nothing.empty(), false);
  assert.equal(nothing.isNothing(), true);
  assert.equal(selectorFromLabelSelector(undefined).matches({}), false);
  const everything = selectorFromLabelSelector({});
  assert.equal(everything.empty(), true);
  assert.equal(everything.matches(undefined), true);
  assert.equal(selectorFromLabelSelector({ matchLabels: {}, matchExpressions: [] }).empty(), true);
});

test('selectorFromLabelSelector converts matchLabels and every operator', () => {
  const sel = selectorFromLabelSelector({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'NotIn', values: ['db', 'cache'] },
      { key: 'env', operator: 'In', values: ['prod'] },
      { key: 'track', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  });
  assert.equal(sel.toString(), 'app=web,env in (prod),!legacy,tier notin (cache,db),track');
  assert.equal(sel.matches({ app: 'web', env: 'prod', track: 'x' }), true);
  assert.equal(sel.matches({ app: 'web', env: 'prod', track: 'x', tier: 'db' }), false);
  assert.equal(sel.matches({ app: 'web', env: 'prod', track: 'x', legacy: '1' }), false);
  assert.equal(sel.matches({ app: 'web', env: 'prod' }), false);
  assert.equal(sel.matches({ app: 'api', env: 'prod', track: 'x' }), false);
});

test('selectorFromLabelSelector rejects invalid requirements with Kubernetes messages', () => {
  assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
    message: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
  });
  assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }), SelectorParseError);
  assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), {
    message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
  });
  assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), {
    message: '"Gt" is not a valid label selector operator',
  });
  assert.throws(() => selectorFromLabelSelector({ matchLabels: { 'bad key': 'v' } }), /key: Invalid value: "bad key"/);
  assert.throws(() => selectorFromLabelSelector({ matchLabels: { k: 'bad value' } }), /values\[0\]\[k\]: Invalid value: "bad value"/);
});

test('selectorFromSet and add build selectors without parsing', () => {
  const sel = selectorFromSet({ b: '2', a: '1' });
  assert.equal(sel.toString(), 'a=1,b=2');
  assert.equal(sel.matches({ a: '1', b: '2', c: '3' }), true);
  assert.equal(selectorFromSet(undefined).empty(), true);
  const more = sel.add(newRequirement('c', 'exists', []));
  assert.equal(more.toString(), 'a=1,b=2,c');
  assert.equal(sel.toString(), 'a=1,b=2');
  assert.equal(LabelSelector.everything().matches({}), true);
});

test('SelectorParseError becomes a 400 BadRequest Status', () => {
  try {
    parseLabelSelector('x==a==b');
    assert.fail('expected an error');
  } catch (e) {
    const status = (e as SelectorParseError).toStatusError();
    assert.equal(status.code, 400);
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.message, "found '==', expected: ',' or 'end of string'");
  }
});
