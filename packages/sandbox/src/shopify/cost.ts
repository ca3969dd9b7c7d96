import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isLeafType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';

/**
 * Shopify's calculated query cost, and its leaky bucket. Costs follow Shopify's published rules:
 * scalars and enums 0, an object 1, a connection 2 plus `first`/`last` times the cost of one node, a
 * mutation field 10. The bucket is charged the requested cost up front and refunded down to the actual
 * cost (computed the same way over the answer) afterwards.
 */

export const MAX_QUERY_COST = 1000;
const MUTATION_COST = 10;

type Fragments = Map<string, FragmentDefinitionNode>;

export function operationOf(document: DocumentNode, operationName?: string | null) {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
}

function fragmentsOf(document: DocumentNode): Fragments {
  const map: Fragments = new Map();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) map.set(d.name.value, d);
  return map;
}

const isConnection = (type: GraphQLNamedType) => type.name.endsWith('Connection');

/** The requested cost of an operation, from its text and variables alone. */
export function requestedCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
): number {
  const op = operationOf(document, operationName);
  if (!op) return 0;
  if (op.operation === 'mutation') return op.selectionSet.selections.length * MUTATION_COST;
  const root = schema.getQueryType();
  if (!root) return 0;
  return selectionCost(schema, fragmentsOf(document), op.selectionSet, root, variables);
}

function fieldDef(type: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
}

type WithArguments = { arguments?: readonly { name: { value: string }; value: unknown }[] };

/** A field argument's value, variables filled in; undefined when the field has no such argument. */
function argValue(node: WithArguments, name: string, variables: Record<string, unknown>): unknown {
  const arg = node.arguments?.find((a) => a.name.value === name);
  return arg && valueFromASTUntyped(arg.value as Parameters<typeof valueFromASTUntyped>[0], variables);
}

function argNumber(node: WithArguments, name: string, variables: Record<string, unknown>) {
  const value = argValue(node, name, variables);
  return typeof value === 'number' ? value : null;
}

/** How many ids a field's `ids` argument names (`nodes(ids:)`); 0 when it has none. */
function idsAsked(node: WithArguments, variables: Record<string, unknown>) {
  const value = argValue(node, 'ids', variables);
  return Array.isArray(value) ? value.length : 0;
}

function selectionCost(
  schema: GraphQLSchema,
  fragments: Fragments,
  set: SelectionSetNode,
  parent: GraphQLCompositeType,
  variables: Record<string, unknown>,
): number {
  let total = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.INLINE_FRAGMENT) {
      const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
      if (on && isCompositeType(on)) total += selectionCost(schema, fragments, sel.selectionSet, on, variables);
      continue;
    }
    if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const frag = fragments.get(sel.name.value);
      const on = frag && schema.getType(frag.typeCondition.name.value);
      if (frag && on && isCompositeType(on))
        total += selectionCost(schema, fragments, frag.selectionSet, on, variables);
      continue;
    }
    const def = fieldDef(parent, sel.name.value);
    if (!def || !sel.selectionSet) continue;
    const type = getNamedType(def.type);
    if (isLeafType(type) || !isCompositeType(type)) continue;
    if (isConnection(type)) {
      const size = argNumber(sel, 'first', variables) ?? argNumber(sel, 'last', variables) ?? 0;
      let node = 0;
      for (const inner of sel.selectionSet.selections) {
        if (inner.kind !== Kind.FIELD || !inner.selectionSet) continue;
        const innerDef = fieldDef(type, inner.name.value);
        if (!innerDef) continue;
        const innerType = getNamedType(innerDef.type);
        if (!isCompositeType(innerType)) continue;
        if (inner.name.value === 'nodes')
          node += 1 + selectionCost(schema, fragments, inner.selectionSet, innerType, variables);
        else if (inner.name.value === 'edges')
          node += selectionCost(schema, fragments, inner.selectionSet, innerType, variables);
      }
      total += 2 + size * node;
    } else {
      // `nodes(ids:)` reads one object an id: it costs as many of them as were asked for.
      const each = 1 + selectionCost(schema, fragments, sel.selectionSet, type, variables);
      total += each * Math.max(1, idsAsked(sel, variables));
    }
  }
  return total;
}

/** The actual cost: the same rules over what was returned (connections count the nodes they hold). */
export function actualCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  data: unknown,
): number {
  const op = operationOf(document, operationName);
  if (!op || data == null) return 0;
  if (op.operation === 'mutation') return op.selectionSet.selections.length * MUTATION_COST;
  const root = schema.getQueryType();
  if (!root) return 0;
  return valueCost(schema, fragmentsOf(document), op.selectionSet, root, data as Record<string, unknown>);
}

function valueCost(
  schema: GraphQLSchema,
  fragments: Fragments,
  set: SelectionSetNode,
  parent: GraphQLCompositeType,
  value: Record<string, unknown>,
): number {
  let total = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.INLINE_FRAGMENT || sel.kind === Kind.FRAGMENT_SPREAD) {
      const frag = sel.kind === Kind.FRAGMENT_SPREAD ? fragments.get(sel.name.value) : sel;
      const onName = frag?.typeCondition?.name.value;
      const on = onName ? schema.getType(onName) : parent;
      if (frag && on && isCompositeType(on)) total += valueCost(schema, fragments, frag.selectionSet, on, value);
      continue;
    }
    const def = fieldDef(parent, sel.name.value);
    if (!def || !sel.selectionSet) continue;
    const type = getNamedType(def.type);
    if (!isCompositeType(type)) continue;
    const child = value[sel.alias?.value ?? sel.name.value];
    if (child == null) continue;
    const items = Array.isArray(child) ? child : [child];
    if (isConnection(type)) {
      total += 2;
      for (const inner of sel.selectionSet.selections) {
        if (inner.kind !== Kind.FIELD || !inner.selectionSet) continue;
        const innerDef = fieldDef(type, inner.name.value);
        const innerType = innerDef && getNamedType(innerDef.type);
        if (!innerType || !isCompositeType(innerType)) continue;
        const list = (child as Record<string, unknown>)[inner.alias?.value ?? inner.name.value];
        if (!Array.isArray(list)) continue;
        for (const n of list) {
          if (n == null) continue;
          if (inner.name.value === 'nodes')
            total += 1 + valueCost(schema, fragments, inner.selectionSet, innerType, n as Record<string, unknown>);
          else if (inner.name.value === 'edges')
            total += valueCost(schema, fragments, inner.selectionSet, innerType, n as Record<string, unknown>);
        }
      }
    } else if (sel.arguments?.some((a) => a.name.value === 'ids')) {
      // `nodes(ids:)`: each object found costs what it holds.
      for (const item of items)
        if (item != null)
          total += 1 + valueCost(schema, fragments, sel.selectionSet, type, item as Record<string, unknown>);
    } else if (items.length > 0) {
      // A plain list of objects costs what one of them does, as its requested cost assumed.
      total += 1 + valueCost(schema, fragments, sel.selectionSet, type, items[0] as Record<string, unknown>);
    }
  }
  return total;
}

export interface Bucket {
  available: number;
  at: number;
  maximumAvailable: number;
  restoreRate: number;
}

/** The per-shop leaky bucket: refills at restoreRate points per second up to maximumAvailable. */
export function refill(bucket: Bucket, now = Date.now()) {
  if (bucket.available < 0) bucket.available = bucket.maximumAvailable;
  bucket.available = Math.min(
    bucket.maximumAvailable,
    bucket.available + ((now - bucket.at) / 1000) * bucket.restoreRate,
  );
  bucket.at = now;
  return bucket.available;
}

export function costExtension(requested: number, actual: number | null, bucket: Bucket) {
  return {
    cost: {
      requestedQueryCost: requested,
      actualQueryCost: actual,
      throttleStatus: {
        maximumAvailable: bucket.maximumAvailable,
        currentlyAvailable: Math.floor(bucket.available),
        restoreRate: bucket.restoreRate,
      },
    },
  };
}
