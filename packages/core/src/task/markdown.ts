import { fromMarkdown } from 'mdast-util-from-markdown';

/** The mdast tree mdast-util-from-markdown produces. */
export type MdRoot = ReturnType<typeof fromMarkdown>;
/** Any mdast node (content of a root or parent). */
export type MdNode = MdRoot['children'][number] | MdRoot;

interface AnyNode {
  type: string;
  value?: string;
  depth?: number;
  children?: AnyNode[];
  position?: { start: { line: number; offset?: number }; end: { line: number; offset?: number } };
}

/** A level-1/2 heading and the top-level nodes up to the next one. */
export interface MdSection {
  heading: string;
  depth: number;
  line: number;
  nodes: AnyNode[];
}

/** Parses a markdown body into level-1/2 sections (deeper headings stay inside their section). */
export function parseSections(body: string): MdSection[] {
  const root = fromMarkdown(body) as unknown as AnyNode;
  const sections: MdSection[] = [];
  let current: MdSection | undefined;
  for (const node of root.children ?? []) {
    if (node.type === 'heading' && (node.depth ?? 9) <= 2) {
      current = {
        heading: nodeText(node).trim(),
        depth: node.depth ?? 2,
        line: lineOf(node),
        nodes: [],
      };
      sections.push(current);
    } else if (current) current.nodes.push(node);
  }
  return sections;
}

/** Plain text of a node (inline code included), for headings. */
export function nodeText(node: AnyNode): string {
  if (typeof node.value === 'string') return node.value;
  return (node.children ?? []).map(nodeText).join('');
}

/** The source text a node was parsed from. */
export function sourceOf(node: AnyNode, source: string): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? nodeText(node) : source.slice(start, end);
}

/** 1-based line where a node starts. */
export function lineOf(node: AnyNode): number {
  return node.position?.start.line ?? 0;
}

/** Top-level list items of a section's lists, in order. */
export function listItems(nodes: readonly AnyNode[]): AnyNode[] {
  return nodes.filter((n) => n.type === 'list').flatMap((list) => list.children ?? []);
}

/** Every list item of a section's lists, nested ones included, in document order. */
export function allListItems(nodes: readonly AnyNode[]): AnyNode[] {
  const out: AnyNode[] = [];
  const walk = (items: AnyNode[]) => {
    for (const item of items) {
      out.push(item);
      for (const child of item.children ?? [])
        if (child.type === 'list') walk(child.children ?? []);
    }
  };
  walk(listItems(nodes));
  return out;
}

export type { AnyNode as MdAnyNode };
