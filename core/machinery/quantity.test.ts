import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatQuantity,
  parseQuantity,
  Quantity,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_SUFFIX_ERROR,
  QuantityParseError,
} from './quantity.ts';

test('parses decimal SI, binary SI, exponents and plain numbers', () => {
  const cases: [string, number, number, string][] = [
    // input, value in base units, milli-units, format
    ['100m', 0.1, 100, 'DecimalSI'],
    ['1', 1, 1000, 'DecimalSI'],
    ['1.5', 1.5, 1500, 'DecimalSI'],
    ['.5', 0.5, 500, 'DecimalSI'],
    ['2k', 2000, 2_000_000, 'DecimalSI'],
    ['3M', 3e6, 3e9, 'DecimalSI'],
    ['250u', 0.00025, 1, 'DecimalSI'],
    ['1Ki', 1024, 1_024_000, 'BinarySI'],
    ['1Gi', 1024 ** 3, 1024 ** 3 * 1000, 'BinarySI'],
    ['2e3', 2000, 2_000_000, 'DecimalExponent'],
    ['1E-3', 0.001, 1, 'DecimalExponent'],
    ['+5', 5, 5000, 'DecimalSI'],
    ['-100m', -0.1, -100, 'DecimalSI'],
    ['0', 0, 0, 'DecimalSI'],
    ['128974848', 128974848, 128974848000, 'DecimalSI'],
  ];
  for (const [input, value, milli, format] of cases) {
    const q = parseQuantity(input);
    assert.equal(q.value, value, `${input} value`);
    assert.equal(q.milli, milli, `${input} milli`);
    assert.equal(q.format, format, `${input} format`);
  }
});

test('canonical string forms', () => {
  const cases: [string, string][] = [
    ['100m', '100m'],
    ['0.1', '100m'],
    ['1.5', '1500m'],
    ['1.5k', '1500'],
    ['1000', '1k'],
    ['1000000', '1M'],
    ['0.5Gi', '512Mi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['1024', '1024'],
    ['1024Ki', '1Mi'],
    ['1025Ki', '1025Ki'],
    ['0.5Ki', '512'],
    ['1.1Ki', '1126400m'],
    ['2e3', '2e3'],
    ['1.5e3', '1500'],
    ['12e6', '12e6'],
    ['0.0001', '100u'],
    ['-1.5', '-1500m'],
    ['0Gi', '0'],
    ['000', '0'],
    ['1e-12', '1e-9'],
  ];
  for (const [input, want] of cases) assert.equal(formatQuantity(parseQuantity(input)), want, input);
});

test('values are rounded up to whole nano-units, away from zero', () => {
  assert.equal(parseQuantity('0.1n').toString(), '1n');
  assert.equal(parseQuantity('1.0000000001').toString(), '1000000001n');
  assert.equal(parseQuantity('-0.1n').toString(), '-1n');
  assert.equal(parseQuantity('1e-30').toString(), '1e-9');
});

test('Value and MilliValue round up away from zero', () => {
  assert.equal(parseQuantity('0.1').valueInt(), 1n);
  assert.equal(parseQuantity('-0.1').valueInt(), -1n);
  assert.equal(parseQuantity('1.5m').milliValue(), 2n);
  assert.equal(parseQuantity('-1.5m').milliValue(), -2n);
  assert.equal(parseQuantity('-1.5m').milli, -2);
  assert.equal(parseQuantity('2Gi').valueInt(), 2147483648n);
});

test('binary quantities are capped at 2^63-1', () => {
  const q = parseQuantity('10Ei');
  assert.equal(q.valueInt(), 2n ** 63n - 1n);
  assert.equal(q.toString(), '9223372036854775807');
  assert.equal(parseQuantity('-10Ei').valueInt(), -(2n ** 63n - 1n));
  assert.equal(parseQuantity('8Ei').valueInt(), 2n ** 63n - 1n);
  assert.equal(parseQuantity('7Ei').toString(), '7Ei');
});

test('bad syntax and suffixes throw Kubernetes messages', () => {
  for (const bad of ['', 'abc', '1.2.3', '1 Gi', ' 1', '1e3.5', '1Gi ', '1,5', '1x', '1KI', '1Gib']) {
    assert.throws(() => parseQuantity(bad), (e: Error) => e instanceof QuantityParseError && e.message === QUANTITY_FORMAT_ERROR, JSON.stringify(bad));
  }
  for (const bad of ['5e', '1iK', '1m5', '1mi', '1kk', 'Gi1', '--1']) {
    assert.throws(() => parseQuantity(bad), (e: Error) => e instanceof QuantityParseError && e.message === QUANTITY_SUFFIX_ERROR, bad);
  }
  assert.equal(QUANTITY_FORMAT_ERROR, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
});

test('JSON numbers are accepted', () => {
  assert.equal(parseQuantity(2).toString(), '2');
  assert.equal(parseQuantity(0.25).toString(), '250m');
  assert.equal(parseQuantity(1e21).value, 1e21);
});

test('comparison and arithmetic are exact', () => {
  const cpu = (s: string) => parseQuantity(s);
  assert.equal(cpu('1').cmp(cpu('1000m')), 0);
  assert.equal(cpu('999m').cmp(cpu('1')), -1);
  assert.equal(cpu('1Ki').cmp(cpu('1k')), 1);
  assert.equal(cpu('-1').cmp(cpu('1m')), -1);
  assert.equal(cpu('-2').cmp(cpu('-1')), -1);
  assert.equal(cpu('1e9').cmp(cpu('999999999')), 1);
  assert.equal(cpu('0').cmp(cpu('-0')), 0);
  assert.equal(cpu('100m').add(cpu('250m')).toString(), '350m');
  assert.equal(cpu('0.1').add(cpu('0.2')).cmp(cpu('300m')), 0);
  assert.equal(cpu('1Gi').add(cpu('512Mi')).toString(), '1536Mi');
  assert.equal(cpu('1').sub(cpu('1500m')).toString(), '-500m');
  assert.equal(cpu('1').sub(cpu('1')).isZero(), true);
});

test('constructors from milli-units and base units', () => {
  assert.equal(Quantity.fromMilli(1500).toString(), '1500m');
  assert.equal(Quantity.fromMilli(2000).toString(), '2');
  assert.equal(Quantity.fromValue(1024 ** 3, 'BinarySI').toString(), '1Gi');
  assert.equal(Quantity.fromValue(5).value, 5);
  assert.equal(JSON.stringify({ cpu: parseQuantity('0.5') }), '{"cpu":"500m"}');
  assert.equal(Quantity.parse('1Mi').valueInt(), 1048576n);
});
