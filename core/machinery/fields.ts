/**
 * Field selectors as Kubernetes 1.27 parses and matches them (k8s.io/apimachinery/pkg/fields):
 * comma-separated terms `field=value`, `field==value`, `field!=value`, ANDed; a value may contain
 * `\,` `\=` and `\\` escapes. A field absent from an object reads as the empty string.
 */
import { SelectorParseError } from './labels.ts';

/** One term of a field selector (`==` is reported as `=`). */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** Escapes a literal value for use in a field selector (`\` → `\\`, `,` → `\,`, `=` → `\=`). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Undoes {@link escapeFieldValue}. Throws SelectorParseError, worded as Kubernetes, on an unknown
 * escape, a trailing backslash, or an unescaped `,` or `=` (Kubernetes prints that character as
 * its code point number, e.g. `61` for `=`).
 */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** A parsed field selector: the AND of its requirements. */
export class FieldSelector {
  readonly requirements: readonly FieldRequirement[];

  constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = requirements;
  }

  /** The selector that matches everything. */
  static everything(): FieldSelector {
    return EVERYTHING;
  }

  /** true when every requirement holds; `get` returns a field's value, undefined reading as ''. */
  matches(get: (field: string) => string | undefined): boolean {
    return this.requirements.every((r) => {
      const actual = get(r.field) ?? '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }

  /** true when the selector does not restrict anything. */
  empty(): boolean {
    return this.requirements.length === 0;
  }

  /** The value the selector requires `field` to equal, if any. */
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /** A copy with each requirement's field (and value) rewritten; used for field-label aliases. */
  transform(fn: (field: string, value: string) => { field: string; value: string }): FieldSelector {
    const next: FieldRequirement[] = [];
    for (const r of this.requirements) {
      const t = fn(r.field, r.value);
      if (t.field === '' && t.value === '') continue;
      next.push({ field: t.field, operator: r.operator, value: t.value });
    }
    return new FieldSelector(next);
  }

  /** Kubernetes' string form, values escaped: `a=b,c!=d`. */
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

const EVERYTHING = new FieldSelector([]);

/** Splits on commas that are not escaped; escapes are kept in the terms. */
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** Splits a term at the first operator occurrence (field names have no escapes). */
function splitTerm(term: string): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses a field selector such as `status.phase!=Running,spec.nodeName=n1`. Terms are checked in
 * sorted order, as Kubernetes does; empty terms are skipped. Throws SelectorParseError with
 * Kubernetes' message (`invalid selector: '…'; can't understand '…'`).
 */
export function parseFieldSelector(s: string): FieldSelector {
  const parts = splitTerms(s).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorParseError(`invalid selector: '${s}'; can't understand '${part}'`);
    reqs.push({ field: t.lhs, operator: t.op === '!=' ? '!=' : '=', value: unescapeFieldValue(t.rhs) });
  }
  return reqs.length === 0 ? EVERYTHING : new FieldSelector(reqs);
}

/** A selector requiring each field to equal the given value. */
export function fieldSelectorFromSet(set: Record<string, string>): FieldSelector {
  return new FieldSelector(Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })));
}
