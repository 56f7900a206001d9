/**
 * Name and key validation as Kubernetes 1.27 does it (k8s.io/apimachinery/pkg/util/validation and
 * api/validation/path). Every validator returns the list of error messages Kubernetes would give,
 * worded identically, and an empty list for a valid value. Lengths are counted in UTF-8 bytes, as
 * Go's `len` does.
 */

/** Validates a metadata.name (or, with `prefix`, a metadata.generateName) and returns error messages. */
export type NameValidator = (name: string, prefix: boolean) => string[];

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Maximum length of a DNS-1123 label (and of a label value and a qualified name's name part). */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Maximum length of a DNS-1123 subdomain. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Maximum length of a DNS-1035 label. */
export const DNS1035_LABEL_MAX_LENGTH = 63;
/** Maximum length of a label value. */
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Maximum length of the name part of a qualified name. */
export const QUALIFIED_NAME_MAX_LENGTH = 63;

/** The length Go's `len()` gives a string: its UTF-8 byte count. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `must be non-empty`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * A regex failure message: `msg (e.g. 'a',  or 'b', regex used for validation is 'fmt')`, including
 * Kubernetes' double space before each "or".
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const listed = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${listed}regex used for validation is '${fmt}')`;
}

/** A DNS-1123 label: at most 63 lower-case alphanumerics or '-', starting and ending alphanumeric. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

/** A DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/** A DNS-1035 label: like a DNS-1123 label but starting with a letter (Service names). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL_RE.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

const QUALIFIED_NAME_ERR_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/**
 * A qualified name (label keys, annotation keys, finalizers): an optional DNS-1123 subdomain prefix
 * and '/', then a name part of at most 63 alphanumerics, '-', '_' or '.', starting and ending
 * alphanumeric.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** A label value: empty, or at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** Names that may not be used as a path segment. */
export const NAME_MAY_NOT_BE = ['.', '..'] as const;
/** Substrings a path segment name may not contain. */
export const NAME_MAY_NOT_CONTAIN = ['/', '%'] as const;

/** A name usable as one URL path segment: not `.` or `..`, and without `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of NAME_MAY_NOT_BE) {
    if (name === illegal) return [`may not be '${illegal}'`];
  }
  return isValidPathSegmentPrefix(name);
}

/** A prefix of a path segment name (a generateName): without `/` or `%`. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of NAME_MAY_NOT_CONTAIN) {
    if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  }
  return errs;
}

/**
 * Kubernetes' masking of a generateName's trailing dash before it is validated as a name: the last
 * two characters become a single 'a' (a quirk kept for fidelity).
 */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

/** metadata.name must be a DNS-1123 subdomain (most kinds). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** metadata.name must be a DNS-1123 label (namespaces). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** metadata.name must be a DNS-1035 label (services). */
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** metadata.name must be a path segment name (RBAC kinds; the generic check every kind passes). */
export const validatePathSegmentName: NameValidator = (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name));

/** Namespace names are DNS-1123 labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

/** CronJob names: DNS-1123 subdomains of at most 52 characters (so Job names with a suffix fit a label). */
export const validateCronJobName: NameValidator = (name, prefix) => {
  const errs = nameIsDNSSubdomain(name, prefix);
  if (!prefix && byteLength(name) > DNS1035_LABEL_MAX_LENGTH - 11) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH - 11));
  return errs;
};

/** Generated names are the generateName (cut to this length) plus 5 random characters. */
export const MAX_GENERATE_NAME_BASE_LENGTH = 63 - 5;

/**
 * The name validator Kubernetes 1.27 applies to metadata.name of each served kind, keyed by
 * `group/resource` (the core group is empty, e.g. `/pods`, `apps/deployments`). Core v1 Events are
 * not name-validated by their strategy beyond the generic path-segment check (legacy behaviour);
 * events.k8s.io Events are DNS subdomains. Review kinds are never stored and only need path segments.
 */
export const NAME_VALIDATORS: Readonly<Record<string, NameValidator>> = {
  '/namespaces': validateNamespaceName,
  '/nodes': nameIsDNSSubdomain,
  '/pods': nameIsDNSSubdomain,
  '/services': nameIsDNS1035Label,
  '/endpoints': nameIsDNSSubdomain,
  '/configmaps': nameIsDNSSubdomain,
  '/secrets': nameIsDNSSubdomain,
  '/serviceaccounts': nameIsDNSSubdomain,
  '/events': validatePathSegmentName,
  '/replicationcontrollers': nameIsDNSSubdomain,
  'events.k8s.io/events': nameIsDNSSubdomain,
  'coordination.k8s.io/leases': nameIsDNSSubdomain,
  'apps/deployments': nameIsDNSSubdomain,
  'apps/replicasets': nameIsDNSSubdomain,
  'apps/statefulsets': nameIsDNSSubdomain,
  'apps/daemonsets': nameIsDNSSubdomain,
  'apps/controllerrevisions': nameIsDNSSubdomain,
  'batch/jobs': nameIsDNSSubdomain,
  'batch/cronjobs': validateCronJobName,
  'discovery.k8s.io/endpointslices': nameIsDNSSubdomain,
  'scheduling.k8s.io/priorityclasses': nameIsDNSSubdomain,
  'policy/poddisruptionbudgets': nameIsDNSSubdomain,
  'autoscaling/horizontalpodautoscalers': nameIsDNSSubdomain,
  'rbac.authorization.k8s.io/roles': validatePathSegmentName,
  'rbac.authorization.k8s.io/clusterroles': validatePathSegmentName,
  'rbac.authorization.k8s.io/rolebindings': validatePathSegmentName,
  'rbac.authorization.k8s.io/clusterrolebindings': validatePathSegmentName,
  'authorization.k8s.io/selfsubjectaccessreviews': validatePathSegmentName,
  'authorization.k8s.io/subjectaccessreviews': validatePathSegmentName,
};

/** The name validator of a resource; kinds not in {@link NAME_VALIDATORS} get DNS-1123 subdomains. */
export function nameValidatorFor(group: string, resource: string): NameValidator {
  const key = `${group}/${resource}`;
  return Object.hasOwn(NAME_VALIDATORS, key) ? NAME_VALIDATORS[key] : nameIsDNSSubdomain;
}
