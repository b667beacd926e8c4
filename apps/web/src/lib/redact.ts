import { isSecretName } from './schema-fields';

export const REDACTED = '•••••• (write-only)';

/**
 * A record as the GUI may show it (spec 2.12): every value under a secret-named key, at any
 * depth, is replaced, whatever the API sent.
 */
export function redactSecrets(value: unknown, key = ''): unknown {
  if (key && isSecretName(key) && value !== null && value !== undefined && value !== '') return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, k)]));
  }
  return value;
}

export interface TreeNode<T> {
  row: T;
  children: TreeNode<T>[];
}

/** Rows with a parent reference as a forest; a row whose parent is not among them is a root. */
export function buildTree<T extends Record<string, unknown>>(
  rows: readonly T[],
  parentKey: string,
): TreeNode<T>[] {
  const nodes = new Map<unknown, TreeNode<T>>(rows.map((row) => [row.id, { row, children: [] }]));
  const roots: TreeNode<T>[] = [];
  for (const node of nodes.values()) {
    const parent = node.row[parentKey] ? nodes.get(node.row[parentKey]) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
