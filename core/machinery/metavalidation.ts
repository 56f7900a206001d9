/**
 * ObjectMeta validation as Kubernetes 1.27 does it (k8s.io/apimachinery/pkg/api/validation/objectmeta.go
 * plus the core group's finalizer-name rule), and the field-error vocabulary of
 * k8s.io/apimachinery/pkg/util/validation/field: each error has the field path, the cause type
 * (`FieldValueInvalid`, …) and a message worded and formatted exactly as Kubernetes' `ErrorBody()`,
 * so `${field}: ${message}` is the text a real API server puts in a 422 Invalid Status.
 */
import { invalid, type StatusCause, type StatusError } from './status.ts';
import {
  byteLength,
  isQualifiedName,
  isValidLabelValue,
  MAX_GENERATE_NAME_BASE_LENGTH,
  validateNamespaceName,
  type NameValidator,
} from './names.ts';

/** metav1.CauseType values of field errors. */
export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/** One validation error. `message` is Kubernetes' ErrorBody, e.g. `Invalid value: "X": must be …`. */
export interface FieldError {
  /** The field path, e.g. `metadata.labels` or `spec.containers[0].name`. */
  field: string;
  type: CauseType;
  /** The error body as Kubernetes formats it (type, bad value, detail). */
  message: string;
  /** The detail alone (without type and value). */
  detail: string;
}

const TYPE_TEXT: Record<CauseType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** A value already rendered the way Go's fmt would print it; passed through untouched. */
export class GoValue {
  constructor(readonly text: string) {}
}

/** Go's `strconv.Quote` (the `%q` verb): double-quoted with Go escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp === 0x07) out += '\\a';
    else if (cp === 0x08) out += '\\b';
    else if (cp === 0x0c) out += '\\f';
    else if (cp === 0x0a) out += '\\n';
    else if (cp === 0x0d) out += '\\r';
    else if (cp === 0x09) out += '\\t';
    else if (cp === 0x0b) out += '\\v';
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Renders a bad value as Go's field.Error does: strings quoted, numbers plain, nil as `null`, []string Go-style. */
export function formatBadValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return `[]string{${value.map(goQuote).join(', ')}}`;
  return JSON.stringify(value);
}

function makeError(type: CauseType, field: string, value: unknown, detail: string, showValue: boolean): FieldError {
  let body = TYPE_TEXT[type];
  if (showValue) body += `: ${formatBadValue(value)}`;
  if (detail) body += `: ${detail}`;
  return { field, type, message: body, detail };
}

/** `Invalid value: <value>: <detail>`. */
export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return makeError('FieldValueInvalid', field, value, detail, true);
}

/** `Required value[: <detail>]`. */
export function fieldRequired(field: string, detail = ''): FieldError {
  return makeError('FieldValueRequired', field, undefined, detail, false);
}

/** `Forbidden: <detail>`. */
export function fieldForbidden(field: string, detail: string): FieldError {
  return makeError('FieldValueForbidden', field, undefined, detail, false);
}

/** `Too long: must have at most N bytes` (Kubernetes 1.27 wording). */
export function fieldTooLong(field: string, maxLength: number): FieldError {
  return makeError('FieldValueTooLong', field, undefined, maxLength >= 0 ? `must have at most ${maxLength} bytes` : 'value is too long', false);
}

/** `Unsupported value: <value>: supported values: "a", "b"`. */
export function fieldNotSupported(field: string, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return makeError('FieldValueNotSupported', field, value, detail, true);
}

/** `Duplicate value: <value>`. */
export function fieldDuplicate(field: string, value: unknown): FieldError {
  return makeError('FieldValueDuplicate', field, value, '', true);
}

/** `Not found: <value>`. */
export function fieldNotFound(field: string, value: unknown): FieldError {
  return makeError('FieldValueNotFound', field, value, '', true);
}

/** `Too many: <actual>: must have at most N items`. */
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  return makeError('FieldValueTooMany', field, actual, `must have at most ${max} items`, true);
}

/** `field: body`, as Go's `(*field.Error).Error()`; a nil path prints as `<nil>`. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field === '' ? '<nil>' : e.field}: ${e.message}`;
}

/** The message of an aggregate of errors: one error alone, several as `[a, b]`, duplicates dropped. */
export function aggregateFieldErrors(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorString))];
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

/** The `details.causes` of a Status for these errors. */
export function toStatusCauses(errs: readonly FieldError[]): StatusCause[] {
  return errs.map((e) => ({ reason: e.type, message: e.message, field: e.field }));
}

/** A 422 Invalid StatusError, `Kind.group "name" is invalid: …`, with one cause per error. */
export function invalidError(kind: string, group: string, name: string, errs: readonly FieldError[]): StatusError {
  const seen = new Set<string>();
  const unique = errs.filter((e) => {
    const k = fieldErrorString(e);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return invalid(kind, group, name, toStatusCauses(unique));
}

/** Maximum total size (keys plus values, in bytes) of an object's annotations. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
/** The message of an immutable-field violation. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
/** The message of a negative-number violation. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
/** Finalizer names a core-group object may carry without a domain prefix. */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);
/** Maximum length of managedFields[].manager. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** Maximum length of managedFields[].subresource. */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** Options of {@link validateObjectMeta}. */
export interface ObjectMetaValidationOptions {
  /** true: metadata.namespace is required; false: it is forbidden. */
  namespaced: boolean;
  /** Validates metadata.name (and generateName as a prefix); see names.ts NAME_VALIDATORS. */
  nameValidator: NameValidator;
  /**
   * On create, an empty name with a generateName is accepted: the generateName is validated as a
   * prefix and the name it will generate (first 58 characters plus 5) as a name. Kubernetes itself
   * generates the name before validating; do that when possible and this flag changes nothing.
   */
  isCreate?: boolean;
  /** Apply the core group's rule that an unqualified finalizer must be a standard one (default true). */
  kubeFinalizers?: boolean;
  /** Path of the metadata (default `metadata`; e.g. `spec.template.metadata`). */
  fieldPath?: string;
  /**
   * The stored metadata this is an update of: labels, annotations, ownerReferences, finalizers
   * and managedFields that are the very same values (===) as its own were valid when stored and
   * are not checked again.
   */
  unchanged?: any;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function entries(m: unknown): [string, string][] {
  if (!m || typeof m !== 'object') return [];
  return Object.entries(m as Record<string, unknown>).map(([k, v]) => [k, str(v)]);
}

/** Validates label keys (qualified names) and values; errors are reported at `fieldPath`. */
export function validateLabels(labels: unknown, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldInvalid(fieldPath, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(fieldPath, v, msg));
  }
  return errs;
}

/** Validates annotation keys (qualified names, case-insensitive) and their total size (256 KiB). */
export function validateAnnotations(annotations: unknown, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(fieldPath, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(fieldTooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

function goPtrBool(v: unknown): string {
  return typeof v === 'boolean' ? `(*bool)(${v})` : '(*bool)(nil)';
}

/**
 * Go's `%#v` of a metav1.OwnerReference. NOTE: Go prints pointer addresses for controller and
 * blockOwnerDeletion; they are shown here as `(*bool)(true)` since addresses mean nothing.
 */
function goOwnerReference(ref: any): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(str(ref?.apiVersion))}, Kind:${goQuote(str(ref?.kind))}, ` +
    `Name:${goQuote(str(ref?.name))}, UID:${goQuote(str(ref?.uid))}, Controller:${goPtrBool(ref?.controller)}, ` +
    `BlockOwnerDeletion:${goPtrBool(ref?.blockOwnerDeletion)}}`
  );
}

/** Validates ownerReferences: apiVersion with a version, kind, name and uid set; core Events cannot own; at most one controller. */
export function validateOwnerReferences(refs: unknown, fieldPath: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs) {
    const apiVersion = str(ref?.apiVersion);
    const kind = str(ref?.kind);
    const gv = parseGroupVersion(apiVersion);
    if (!gv || gv.version === '') errs.push(fieldInvalid(`${fieldPath}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(fieldInvalid(`${fieldPath}.kind`, kind, 'kind must not be empty'));
    if (str(ref?.name) === '') errs.push(fieldInvalid(`${fieldPath}.name`, str(ref?.name), 'name must not be empty'));
    if (str(ref?.uid) === '') errs.push(fieldInvalid(`${fieldPath}.uid`, str(ref?.uid), 'uid must not be empty'));
    if (gv && gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(fieldInvalid(fieldPath, new GoValue(goOwnerReference(ref)), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref?.controller === true) {
      const current = `${kind}/${str(ref?.name)}`;
      if (firstController !== '') {
        errs.push(
          fieldInvalid(
            fieldPath,
            new GoValue(`[]v1.OwnerReference{${refs.map(goOwnerReference).join(', ')}}`),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** Validates finalizer names (qualified names) and that `orphan` and `foregroundDeletion` are not both set. */
export function validateFinalizers(finalizers: unknown, fieldPath: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  const names = finalizers.map(str);
  for (const f of names) {
    for (const msg of isQualifiedName(f)) errs.push(fieldInvalid(fieldPath, f, msg));
  }
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    errs.push(fieldInvalid(fieldPath, names, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** The core group's finalizer rule: a name without a '/' must be a standard finalizer. */
export function validateKubeFinalizerName(name: string, fieldPath: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldInvalid(fieldPath, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    return [fieldInvalid(fieldPath, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/** A field manager name of printable characters and spaces only (Kubernetes' unicode.IsPrint). */
const MANAGER_CHARS = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

/** Validates managedFields entries: operation Apply or Update, fieldsType FieldsV1, manager printable and ≤ 128 bytes. */

export function validateManagedFields(entriesList: unknown, fieldPath: string): FieldError[] {
  if (!Array.isArray(entriesList)) return [];
  const errs: FieldError[] = [];
  entriesList.forEach((e: any, i: number) => {
    const p = `${fieldPath}[${i}]`;
    const op = str(e?.operation);
    if (op !== 'Apply' && op !== 'Update') errs.push(fieldInvalid(`${p}.operation`, op, 'must be `Apply` or `Update`'));
    const ft = str(e?.fieldsType);
    if (ft !== '' && ft !== 'FieldsV1') errs.push(fieldInvalid(`${p}.fieldsType`, ft, 'must be `FieldsV1`'));
    const manager = str(e?.manager);
    if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldTooLong(`${p}.manager`, FIELD_MANAGER_MAX_LENGTH));
    // NOTE: one test of the whole name first; the per-character scan only runs to report an error.
    let pos = 0;
    if (!MANAGER_CHARS.test(manager)) for (const ch of manager) {
      if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
        const cp = ch.codePointAt(0)!;
        const hex = cp.toString(16).toUpperCase().padStart(4, '0');
        errs.push(fieldInvalid(`${p}.manager`, manager, `invalid character U+${hex} (at position ${pos})`));
      }
      pos += byteLength(ch);
    }
    if (byteLength(str(e?.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH) errs.push(fieldTooLong(`${p}.subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}

function asInt(v: unknown): number | undefined {
  return typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * Validates an object's metadata on create (and, as Kubernetes does, again on update): name or
 * generateName, namespace required or forbidden by scope, generation ≥ 0, labels, annotations,
 * ownerReferences, finalizers and managedFields. Errors come in Kubernetes' order and wording.
 */
export function validateObjectMeta(meta: any, opts: ObjectMetaValidationOptions): FieldError[] {
  const path = opts.fieldPath ?? 'metadata';
  const errs: FieldError[] = [];
  const name = str(meta?.name);
  const generateName = str(meta?.generateName);
  const namespace = str(meta?.namespace);

  if (generateName !== '') {
    for (const msg of opts.nameValidator(generateName, true)) errs.push(fieldInvalid(`${path}.generateName`, generateName, msg));
  }
  if (name === '') {
    if (opts.isCreate && generateName !== '') {
      const candidate = `${generateName.slice(0, MAX_GENERATE_NAME_BASE_LENGTH)}bbbbb`;
      for (const msg of opts.nameValidator(candidate, false)) errs.push(fieldInvalid(`${path}.name`, candidate, msg));
    } else {
      errs.push(fieldRequired(`${path}.name`, 'name or generateName is required'));
    }
  } else {
    for (const msg of opts.nameValidator(name, false)) errs.push(fieldInvalid(`${path}.name`, name, msg));
  }

  if (opts.namespaced) {
    if (namespace === '') errs.push(fieldRequired(`${path}.namespace`));
    else for (const msg of validateNamespaceName(namespace, false)) errs.push(fieldInvalid(`${path}.namespace`, namespace, msg));
  } else if (namespace !== '') {
    errs.push(fieldForbidden(`${path}.namespace`, 'not allowed on this type'));
  }

  const generation = asInt(meta?.generation);
  if (generation !== undefined && generation < 0) errs.push(fieldInvalid(`${path}.generation`, generation, IS_NEGATIVE_ERROR_MSG));

  const old = opts.unchanged;
  if (changed(meta, old, 'labels')) errs.push(...validateLabels(meta?.labels, `${path}.labels`));
  if (changed(meta, old, 'annotations')) errs.push(...validateAnnotations(meta?.annotations, `${path}.annotations`));
  if (changed(meta, old, 'ownerReferences')) errs.push(...validateOwnerReferences(meta?.ownerReferences, `${path}.ownerReferences`));
  const finalizers = changed(meta, old, 'finalizers');
  if (finalizers) errs.push(...validateFinalizers(meta?.finalizers, `${path}.finalizers`));
  if (changed(meta, old, 'managedFields')) errs.push(...validateManagedFields(meta?.managedFields, `${path}.managedFields`));
  if (finalizers && (opts.kubeFinalizers ?? true)) errs.push(...kubeFinalizerErrors(meta?.finalizers, path));
  return errs;
}

/** Whether member `f` of `meta` is not the very same value as in `old` (absent `old`: always). */
function changed(meta: any, old: any, f: string): boolean {
  return old === undefined || old === null || meta?.[f] !== old[f];
}

function kubeFinalizerErrors(finalizers: unknown, path: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  return finalizers.flatMap((f, i) => validateKubeFinalizerName(str(f), `${path}.finalizers[${i}]`));
}

/** A metav1.Time (RFC 3339 string) as Go's time.Time.String() prints it in UTC. */
function goTime(v: unknown): string {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) return formatBadValue(v);
  const iso = new Date(t).toISOString();
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

function sameInstant(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const empty = (v: unknown) => v === undefined || v === null || v === '';
  if (empty(a) || empty(b)) return empty(a) && empty(b);
  const ta = Date.parse(String(a));
  const tb = Date.parse(String(b));
  if (Number.isNaN(ta) || Number.isNaN(tb)) return a === b;
  return ta === tb;
}

/**
 * Validates metadata on update against the stored object's: name, namespace, uid,
 * creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds immutable (`field is
 * immutable`); resourceVersion present; generation not decremented; no finalizer added while
 * deleting; labels, annotations, ownerReferences and managedFields of the new object valid.
 * Unconditional updates must have had the stored resourceVersion filled in before calling this.
 */
export function validateObjectMetaUpdate(
  newMeta: any,
  oldMeta: any,
  opts: {
    kubeFinalizers?: boolean;
    fieldPath?: string;
    /** validateObjectMeta already checked the new metadata: its labels, annotations, ownerReferences, managedFields and finalizer names are not checked again. */
    contentChecked?: boolean;
    /** The update's resourceVersion was settled by the caller (an unconditional update sends none): not checked. */
    resourceVersionChecked?: boolean;
  } = {},
): FieldError[] {
  const path = opts.fieldPath ?? 'metadata';
  const errs: FieldError[] = [];

  if (oldMeta?.deletionTimestamp) {
    const oldSet = new Set((Array.isArray(oldMeta?.finalizers) ? oldMeta.finalizers : []).map(str));
    const added = [...new Set((Array.isArray(newMeta?.finalizers) ? newMeta.finalizers : []).map(str))].filter((f) => !oldSet.has(f)).sort();
    if (added.length > 0) {
      errs.push(fieldForbidden(`${path}.finalizers`, `no new finalizers can be added if the object is being deleted, found new finalizers ${formatBadValue(added)}`));
    }
  }

  const rv = str(newMeta?.resourceVersion);
  if (rv === '' && !opts.resourceVersionChecked) errs.push(fieldInvalid(`${path}.resourceVersion`, rv, 'must be specified for an update'));

  const newGen = asInt(newMeta?.generation) ?? 0;
  const oldGen = asInt(oldMeta?.generation) ?? 0;
  if (newGen < oldGen) errs.push(fieldInvalid(`${path}.generation`, newGen, 'must not be decremented'));

  for (const f of ['name', 'namespace', 'uid'] as const) {
    if (str(newMeta?.[f]) !== str(oldMeta?.[f])) errs.push(fieldInvalid(`${path}.${f}`, str(newMeta?.[f]), FIELD_IMMUTABLE_ERROR_MSG));
  }
  if (!sameInstant(newMeta?.creationTimestamp, oldMeta?.creationTimestamp)) {
    const v = newMeta?.creationTimestamp ? goTime(newMeta.creationTimestamp) : '0001-01-01 00:00:00 +0000 UTC';
    errs.push(fieldInvalid(`${path}.creationTimestamp`, new GoValue(v), FIELD_IMMUTABLE_ERROR_MSG));
  }
  if (!sameInstant(newMeta?.deletionTimestamp, oldMeta?.deletionTimestamp)) {
    const v = newMeta?.deletionTimestamp ? new GoValue(goTime(newMeta.deletionTimestamp)) : null;
    errs.push(fieldInvalid(`${path}.deletionTimestamp`, v, FIELD_IMMUTABLE_ERROR_MSG));
  }
  const newGrace = newMeta?.deletionGracePeriodSeconds ?? null;
  const oldGrace = oldMeta?.deletionGracePeriodSeconds ?? null;
  if (newGrace !== oldGrace) errs.push(fieldInvalid(`${path}.deletionGracePeriodSeconds`, newGrace, FIELD_IMMUTABLE_ERROR_MSG));

  if (opts.contentChecked) return errs;
  errs.push(...validateLabels(newMeta?.labels, `${path}.labels`));
  errs.push(...validateAnnotations(newMeta?.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(newMeta?.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateManagedFields(newMeta?.managedFields, `${path}.managedFields`));
  if (opts.kubeFinalizers ?? true) errs.push(...kubeFinalizerErrors(newMeta?.finalizers, path));
  return errs;
}

/** Options of {@link validateLabelSelector}. */
export interface LabelSelectorValidationOptions {
  /** Skip label-value syntax checks of matchExpressions values (Kubernetes allows this on update of old objects). */
  allowInvalidLabelValueInSelector?: boolean;
}

/**
 * Validates a metav1.LabelSelector object (as in spec.selector): matchLabels as labels; each
 * matchExpressions entry with a valid operator, values required for In/NotIn and forbidden for
 * Exists/DoesNotExist, a qualified-name key and label-syntax values. A null selector is valid.
 */
export function validateLabelSelector(selector: any, fieldPath: string, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  if (selector === null || selector === undefined) return [];
  const errs = validateLabels(selector.matchLabels, `${fieldPath}.matchLabels`);
  const exprs: any[] = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  exprs.forEach((expr, i) => {
    const p = `${fieldPath}.matchExpressions[${i}]`;
    const values: unknown[] = Array.isArray(expr?.values) ? expr.values : [];
    const op = str(expr?.operator);
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldRequired(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldForbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldInvalid(`${p}.operator`, op, 'not a valid selector operator'));
    }
    const key = str(expr?.key);
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid(`${p}.key`, key, msg));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(str(v))) errs.push(fieldInvalid(`${p}.values[${j}]`, str(v), msg));
      });
    }
  });
  return errs;
}
