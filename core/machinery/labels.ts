/**
 * Label selectors as Kubernetes 1.27 parses and matches them (k8s.io/apimachinery/pkg/labels):
 * the string syntax of `?labelSelector=` / `kubectl -l` with every operator (`=`, `==`, `!=`,
 * `in`, `notin`, exists, `!` does-not-exist, `>`, `<`), and the metav1.LabelSelector object of
 * `spec.selector`. Parse errors carry Kubernetes' exact message; the API server returns them as a
 * 400 BadRequest.
 */
import { badRequest, type StatusError } from './status.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';
import { aggregateFieldErrors, fieldInvalid, fieldNotSupported, goQuote, type FieldError } from './metavalidation.ts';

/** selection.Operator values, spelled as Kubernetes spells them. */
export type SelectorOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a label selector: key, operator, values (empty for exists / does-not-exist). */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

/** A selector that could not be parsed or built; `message` is Kubernetes' wording. */
export class SelectorParseError extends Error {
  readonly code = 'SELECTOR_PARSE';
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }

  /** The 400 BadRequest Status an API server answers with. */
  toStatusError(): StatusError {
    return badRequest(this.message);
  }
}

const BINARY_OPERATORS: readonly SelectorOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const VALID_OPERATORS: readonly SelectorOperator[] = [...BINARY_OPERATORS, 'exists', '!'];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64); undefined when s is not a base-10 int64. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

function keyErrors(key: string, path: string): FieldError[] {
  const msgs = isQualifiedName(key);
  return msgs.length > 0 ? [fieldInvalid(path, key, msgs.join('; '))] : [];
}

/**
 * Builds one requirement after Kubernetes' checks (labels.NewRequirement): a qualified-name key;
 * a non-empty value set for in/notin; exactly one value for =, ==, !=; none for exists and !;
 * one integer for gt/lt; label-syntax values. Throws SelectorParseError with the aggregated message.
 */
export function newRequirement(key: string, operator: SelectorOperator, values: readonly string[], pathPrefix = ''): LabelRequirement {
  const at = (child: string) => (pathPrefix ? `${pathPrefix}.${child}` : child);
  const errs: FieldError[] = keyErrors(key, at('key'));
  const valuePath = at('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(fieldInvalid(valuePath, [...values], "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(fieldInvalid(valuePath, [...values], 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(fieldInvalid(valuePath, [...values], 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(fieldInvalid(valuePath, [...values], "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(fieldInvalid(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(fieldNotSupported(at('operator'), operator, VALID_OPERATORS));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(fieldInvalid(`${valuePath}[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length > 0) throw new SelectorParseError(aggregateFieldErrors(errs));
  return { key, operator, values: [...values] };
}

function has(labels: Record<string, string> | undefined, key: string): boolean {
  return labels !== undefined && labels !== null && Object.prototype.hasOwnProperty.call(labels, key);
}

/** Whether one requirement matches a label set (Kubernetes' Requirement.Matches). */
export function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has(labels, r.key) && r.values.includes(labels![r.key]);
    case 'notin':
    case '!=':
      return !has(labels, r.key) || !r.values.includes(labels![r.key]);
    case 'exists':
      return has(labels, r.key);
    case '!':
      return !has(labels, r.key);
    case 'gt':
    case 'lt': {
      if (!has(labels, r.key) || r.values.length !== 1) return false;
      const actual = parseInt64(labels![r.key]);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

const OPERATOR_TEXT: Record<SelectorOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** A requirement in Kubernetes' string syntax (values of in/notin sorted). */
export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${OPERATOR_TEXT[r.operator]}${set ? `(${values})` : values}`;
}

/**
 * A parsed label selector: the AND of its requirements, kept sorted by key. An empty selector
 * matches everything; {@link LabelSelector.nothing} matches nothing.
 */
export class LabelSelector {
  /** The requirements, sorted by key (stable). */
  readonly requirements: readonly LabelRequirement[];
  private readonly matchesNothing: boolean;

  private constructor(requirements: readonly LabelRequirement[], matchesNothing: boolean) {
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.matchesNothing = matchesNothing;
  }

  private static readonly EVERYTHING = new LabelSelector([], false);
  private static readonly NOTHING = new LabelSelector([], true);

  /** A selector of these requirements (already validated, e.g. by {@link newRequirement}). */
  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    return requirements.length === 0 ? LabelSelector.EVERYTHING : new LabelSelector(requirements, false);
  }

  /** The selector that matches every label set. */
  static everything(): LabelSelector {
    return LabelSelector.EVERYTHING;
  }

  /** The selector that matches no label set (a null metav1.LabelSelector). */
  static nothing(): LabelSelector {
    return LabelSelector.NOTHING;
  }

  /** true when every requirement matches `labels` (a missing label set is an empty one). */
  matches(labels: Record<string, string> | undefined): boolean {
    if (this.matchesNothing) return false;
    return this.requirements.every((r) => requirementMatches(r, labels));
  }

  /** true when the selector does not restrict anything (false for the nothing selector). */
  empty(): boolean {
    return !this.matchesNothing && this.requirements.length === 0;
  }

  /** true for the selector that matches nothing. */
  isNothing(): boolean {
    return this.matchesNothing;
  }

  /** The value the selector requires `key` to have, if it pins it to exactly one (=, ==, in with one value). */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (!r) return undefined;
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }

  /** A new selector with more requirements. */
  add(...requirements: LabelRequirement[]): LabelSelector {
    return new LabelSelector([...this.requirements, ...requirements], this.matchesNothing);
  }

  /** Kubernetes' string form: requirements joined by ',' (empty for everything and nothing). */
  toString(): string {
    return this.matchesNothing ? '' : this.requirements.map(requirementString).join(',');
  }
}

// ---- the string syntax -------------------------------------------------------------------

type Token =
  | 'error'
  | 'end'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

const LITERAL_TOKENS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', 'closedPar'],
  [',', 'comma'],
  ['!', 'doesNotExist'],
  ['==', 'doubleEquals'],
  ['=', 'equals'],
  ['>', 'greaterThan'],
  ['in', 'in'],
  ['<', 'lessThan'],
  ['!=', 'notEquals'],
  ['notin', 'notIn'],
  ['(', 'openPar'],
]);

const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

interface Scanned {
  tok: Token;
  lit: string;
}

/** Splits a selector into tokens the way Kubernetes' lexer does (longest operator, whitespace separates). */
function lex(s: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      out.push({ tok: 'end', lit: '' });
      return out;
    }
    if (isSpecial(s[pos])) {
      let buf = '';
      let last: Scanned | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        const t = LITERAL_TOKENS.get(buf);
        if (t) {
          last = { tok: t, lit: buf };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      out.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      const start = pos;
      while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) pos++;
      const lit = s.slice(start, pos);
      out.push({ tok: LITERAL_TOKENS.get(lit) ?? 'identifier', lit });
    }
  }
}

class Parser {
  private position = 0;
  constructor(private readonly items: Scanned[]) {}

  /** The current token; in a values context `in` and `notin` are identifiers. */
  private lookahead(values: boolean): Scanned {
    return this.asContext(this.items[this.position], values);
  }

  private consume(values: boolean): Scanned {
    return this.asContext(this.items[this.position++], values);
  }

  private asContext(item: Scanned, values: boolean): Scanned {
    if (values && (item.tok === 'in' || item.tok === 'notIn')) return { tok: 'identifier', lit: item.lit };
    return item;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'identifier' || tok === 'doesNotExist') {
        let r: LabelRequirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        reqs.push(r);
        const next = this.consume(true);
        if (next.tok === 'end') return reqs;
        if (next.tok === 'comma') {
          const after = this.lookahead(true);
          if (after.tok !== 'identifier' && after.tok !== 'doesNotExist') {
            throw new SelectorParseError(`found '${after.lit}', expected: identifier after ','`);
          }
        } else {
          throw new SelectorParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === 'end') {
        return reqs;
      } else {
        throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: SelectorOperator | undefined } {
    let operator: SelectorOperator | undefined;
    let { tok, lit } = this.consume(true);
    if (tok === 'doesNotExist') {
      operator = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== 'identifier') throw new SelectorParseError(`found '${lit}', expected: identifier`);
    const errs = keyErrors(lit, '');
    if (errs.length > 0) throw new SelectorParseError(aggregateFieldErrors(errs));
    const next = this.lookahead(true).tok;
    if ((next === 'end' || next === 'comma') && operator !== '!') operator = 'exists';
    return { key: lit, operator };
  }

  private parseOperator(): SelectorOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in':
        return 'in';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'greaterThan':
        return 'gt';
      case 'lessThan':
        return 'lt';
      case 'notIn':
        return 'notin';
      case 'notEquals':
        return '!=';
      default:
        throw new SelectorParseError(`found '${lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== 'openPar') throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'identifier' || tok === 'comma') {
      const set = this.parseIdentifiersList();
      if (this.consume(true).tok !== 'closedPar') throw new SelectorParseError(`found '${lit}', expected: ')'`);
      return set;
    }
    if (tok === 'closedPar') {
      this.consume(true);
      return new Set(['']);
    }
    throw new SelectorParseError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        set.add(lit);
        const next = this.lookahead(true);
        if (next.tok === 'comma') continue;
        if (next.tok === 'closedPar') return set;
        throw new SelectorParseError(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === 'comma') {
        if (set.size === 0) set.add('');
        const next = this.lookahead(true).tok;
        if (next === 'closedPar') {
          set.add('');
          return set;
        }
        if (next === 'comma') set.add('');
      } else {
        throw new SelectorParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === 'end' || next === 'comma') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return new Set([lit]);
    throw new SelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses Kubernetes' label selector syntax, e.g. `a in (b,c),!d,e!=f,x>1`. Comma is AND; spaces,
 * tabs and newlines separate tokens; `x in ()` is the set of the empty value, as in Kubernetes.
 * Throws {@link SelectorParseError} with Kubernetes' message (e.g. `unable to parse requirement: …`).
 */
export function parseLabelSelector(s: string): LabelSelector {
  return LabelSelector.of(new Parser(lex(s)).parse());
}

/** A selector requiring exactly these labels (no validation, like labels.SelectorFromSet). */
export function selectorFromSet(set: Record<string, string> | undefined): LabelSelector {
  if (!set) return LabelSelector.everything();
  return LabelSelector.of(Object.entries(set).map(([key, value]) => ({ key, operator: '=' as const, values: [value] })));
}

/** A metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[];
}

/** A metav1.LabelSelector (`spec.selector` of workloads). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

const OBJECT_OPERATORS: ReadonlyMap<string, SelectorOperator> = new Map([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

/**
 * Converts a metav1.LabelSelector to a selector (metav1.LabelSelectorAsSelector): null or
 * undefined matches nothing, an empty object matches everything; matchLabels become `=`
 * requirements and matchExpressions In/NotIn/Exists/DoesNotExist. Throws SelectorParseError with
 * Kubernetes' message for an unknown operator or an invalid requirement.
 */
export function selectorFromLabelSelector(obj: LabelSelectorObject | null | undefined): LabelSelector {
  if (obj === null || obj === undefined) return LabelSelector.nothing();
  const matchLabels = obj.matchLabels ?? {};
  const exprs = obj.matchExpressions ?? [];
  if (Object.keys(matchLabels).length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(matchLabels)) reqs.push(newRequirement(key, '=', [value]));
  for (const expr of exprs) {
    const op = OBJECT_OPERATORS.get(expr.operator);
    if (!op) throw new SelectorParseError(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, [...(expr.values ?? [])]));
  }
  return LabelSelector.of(reqs);
}
