/**
 * Which field selectors each served resource accepts and how their values are read from an object,
 * as Kubernetes 1.27 registers them (the field-label conversion functions of pkg/apis/*\/v1 and the
 * `ToSelectableFields` of pkg/registry/*). Kinds without a registered conversion accept only
 * metadata.name and metadata.namespace. Values are strings as Kubernetes renders them: booleans
 * `true`/`false`, integers in base 10, absent fields as the empty string.
 */
import { badRequest } from '../machinery/status.ts';
import type { FieldSelector } from '../machinery/fields.ts';
import { goQuote } from '../machinery/metavalidation.ts';

/** Reads one selectable field of an object (its wire JSON form) as a string. */
export type FieldGetter = (obj: any) => string;

function s(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function int(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : '0';
}

const metadataName: FieldGetter = (o) => s(o?.metadata?.name);
const metadataNamespace: FieldGetter = (o) => s(o?.metadata?.namespace);

interface FieldTable {
  /** Accepted labels → value getter (aliases included, reading their target). */
  readonly fields: Readonly<Record<string, FieldGetter>>;
  /** Labels rewritten before use, e.g. pods' legacy `spec.host` → `spec.nodeName`. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Kubernetes' error for an unsupported label. */
  readonly unsupported: (label: string) => string;
}

const notSupported = (label: string) => `field label not supported: ${label}`;
const notKnown = (label: string) => `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;

const podNodeName: FieldGetter = (o) => s(o?.spec?.nodeName);

const CORE_EVENT_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': metadataName,
  'metadata.namespace': metadataNamespace,
  'involvedObject.kind': (o) => s(o?.involvedObject?.kind),
  'involvedObject.namespace': (o) => s(o?.involvedObject?.namespace),
  'involvedObject.name': (o) => s(o?.involvedObject?.name),
  'involvedObject.uid': (o) => s(o?.involvedObject?.uid),
  'involvedObject.apiVersion': (o) => s(o?.involvedObject?.apiVersion),
  'involvedObject.resourceVersion': (o) => s(o?.involvedObject?.resourceVersion),
  'involvedObject.fieldPath': (o) => s(o?.involvedObject?.fieldPath),
  reason: (o) => s(o?.reason),
  reportingComponent: (o) => s(o?.reportingComponent),
  source: (o) => s(o?.source?.component) || s(o?.reportingComponent),
  type: (o) => s(o?.type),
};

/** events.k8s.io/v1 Events: the same storage as core Events, selected by their events.k8s.io names. */
const EVENTS_V1_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': metadataName,
  'metadata.namespace': metadataNamespace,
  'regarding.kind': (o) => s(o?.regarding?.kind),
  'regarding.namespace': (o) => s(o?.regarding?.namespace),
  'regarding.name': (o) => s(o?.regarding?.name),
  'regarding.uid': (o) => s(o?.regarding?.uid),
  'regarding.apiVersion': (o) => s(o?.regarding?.apiVersion),
  'regarding.resourceVersion': (o) => s(o?.regarding?.resourceVersion),
  'regarding.fieldPath': (o) => s(o?.regarding?.fieldPath),
  reason: (o) => s(o?.reason),
  reportingController: (o) => s(o?.reportingController),
  type: (o) => s(o?.type),
};

const TABLES: Record<string, FieldTable> = {
  '/pods': {
    fields: {
      'metadata.name': metadataName,
      'metadata.namespace': metadataNamespace,
      'spec.nodeName': podNodeName,
      'spec.restartPolicy': (o) => s(o?.spec?.restartPolicy),
      'spec.schedulerName': (o) => s(o?.spec?.schedulerName),
      'spec.serviceAccountName': (o) => s(o?.spec?.serviceAccountName),
      'spec.hostNetwork': (o) => String(o?.spec?.hostNetwork === true),
      'status.phase': (o) => s(o?.status?.phase),
      'status.podIP': (o) => s(o?.status?.podIPs?.[0]?.ip ?? o?.status?.podIP),
      // Accepted by the 1.27 conversion but not a selectable field: it always reads as ''.
      'status.podIPs': () => '',
      'status.nominatedNodeName': (o) => s(o?.status?.nominatedNodeName),
      'spec.host': podNodeName,
    },
    aliases: { 'spec.host': 'spec.nodeName' },
    unsupported: notSupported,
  },
  '/nodes': {
    fields: { 'metadata.name': metadataName, 'spec.unschedulable': (o) => String(o?.spec?.unschedulable === true) },
    unsupported: notSupported,
  },
  '/namespaces': {
    fields: { 'metadata.name': metadataName, 'status.phase': (o) => s(o?.status?.phase) },
    unsupported: notSupported,
  },
  '/secrets': {
    fields: { 'metadata.name': metadataName, 'metadata.namespace': metadataNamespace, type: (o) => s(o?.type) },
    unsupported: notSupported,
  },
  '/replicationcontrollers': {
    fields: { 'metadata.name': metadataName, 'metadata.namespace': metadataNamespace, 'status.replicas': (o) => int(o?.status?.replicas) },
    unsupported: notSupported,
  },
  '/events': { fields: CORE_EVENT_FIELDS, unsupported: notSupported },
  'events.k8s.io/events': { fields: EVENTS_V1_FIELDS, unsupported: notSupported },
  'batch/jobs': {
    fields: { 'metadata.name': metadataName, 'metadata.namespace': metadataNamespace, 'status.successful': (o) => int(o?.status?.succeeded) },
    unsupported: (label) => `field label ${goQuote(label)} not supported for batchv1.Job`,
  },
};

const DEFAULT_TABLE: FieldTable = {
  fields: { 'metadata.name': metadataName, 'metadata.namespace': metadataNamespace },
  unsupported: notKnown,
};

function tableFor(group: string, resource: string): FieldTable {
  const key = `${group}/${resource}`;
  return Object.hasOwn(TABLES, key) ? TABLES[key] : DEFAULT_TABLE;
}

/**
 * The field selector labels a resource accepts, each with the getter that reads its value from an
 * object. Always includes metadata.name; metadata.namespace for every kind except nodes and
 * namespaces (for other cluster-scoped kinds it is accepted and reads as '').
 */
export function fieldSelectorAttributes(group: string, resource: string): Record<string, FieldGetter> {
  return { ...tableFor(group, resource).fields };
}

/**
 * Checks a field selector against what the resource supports and returns it with legacy labels
 * rewritten (pods' `spec.host` → `spec.nodeName`). Throws a 400 BadRequest StatusError worded as
 * Kubernetes words it: `field label not supported: foo` for kinds with their own field set,
 * `"foo" is not a known field selector: only "metadata.name", "metadata.namespace"` for the rest.
 */
export function checkFieldSelector(group: string, resource: string, sel: FieldSelector): FieldSelector {
  const table = tableFor(group, resource);
  for (const r of sel.requirements) {
    if (!Object.prototype.hasOwnProperty.call(table.fields, r.field)) throw badRequest(table.unsupported(r.field));
  }
  const aliases = table.aliases;
  if (!aliases) return sel;
  return sel.transform((field, value) => ({ field: aliases[field] ?? field, value }));
}

/**
 * A predicate matching objects of the resource against an already checked selector
 * ({@link checkFieldSelector}); an unknown field reads as ''.
 */
export function fieldSelectorMatcher(group: string, resource: string, sel: FieldSelector): (obj: any) => boolean {
  if (sel.empty()) return () => true;
  const fields = tableFor(group, resource).fields;
  return (obj) => sel.matches((f) => (Object.prototype.hasOwnProperty.call(fields, f) ? fields[f](obj) : ''));
}

