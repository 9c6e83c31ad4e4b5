import { lazyRequire } from '@switchyard/utils';
import type markdownItModule from 'markdown-it';
import type { MarkdownIt, Token } from 'markdown-it';

const markdownIt = lazyRequire<typeof markdownItModule>('markdown-it', import.meta.url);

/** A block or inline node of a parsed PLAN body (a small tree built from markdown-it tokens). */
export interface MdAnyNode {
  /** `heading`, `paragraph`, `list`, `listItem`, `code`, `blockquote`, `html`, `text`, `inlineCode`… */
  type: string;
  /** Text of a leaf: inline text, inline code, a code block's content. */
  value?: string;
  /** Heading level. */
  depth?: number;
  children?: MdAnyNode[];
  /** 1-based line where the node starts (0 for inline nodes). */
  line: number;
  /** Source of a paragraph (markdown as written, container indentation removed). */
  source?: string;
}

/** A level-1/2 heading and the top-level nodes up to the next one. */
export interface MdSection {
  heading: string;
  depth: number;
  line: number;
  nodes: MdAnyNode[];
}

// CommonMark, like the task contract's spec: no GFM tables or linkify. One shared instance:
// building a parser compiles its rule chains.
let parser: MarkdownIt | undefined;
const md = () => {
  parser ??= markdownIt()('commonmark');
  return parser;
};

// markdown-it block token types -> node types (other open tokens keep their own name).
const BLOCK_TYPES: Record<string, string> = {
  heading_open: 'heading',
  paragraph_open: 'paragraph',
  bullet_list_open: 'list',
  ordered_list_open: 'list',
  list_item_open: 'listItem',
  blockquote_open: 'blockquote',
};

/** Inline children in document order: text (entities decoded), inline code, raw HTML, breaks. */
function inlineNodes(token: Token | undefined): MdAnyNode[] {
  const out: MdAnyNode[] = [];
  for (const child of token?.children ?? []) {
    const { type } = child;
    if (type === 'text') out.push({ type: 'text', value: child.content, line: 0 });
    else if (type === 'code_inline')
      out.push({ type: 'inlineCode', value: child.content, line: 0 });
    else if (type === 'html_inline') out.push({ type: 'html', value: child.content, line: 0 });
    else if (type === 'softbreak') out.push({ type: 'text', value: '\n', line: 0 });
  }
  return out;
}

/** Turns markdown-it's flat token stream into a tree of block nodes (line = map[0] + 1). */
function buildTree(tokens: Token[]): MdAnyNode[] {
  const root: MdAnyNode[] = [];
  const stack: MdAnyNode[][] = [];
  let parent = root;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.nesting === -1) {
      parent = stack.pop() ?? root;
      continue;
    }
    const line = (token.map?.[0] ?? -1) + 1;
    if (token.nesting === 1) {
      const node: MdAnyNode = { type: BLOCK_TYPES[token.type] ?? token.type, line };
      if (token.type === 'heading_open') node.depth = Number(token.tag.slice(1));
      const inline = tokens[i + 1];
      if (inline?.type === 'inline') {
        node.children = inlineNodes(inline);
        if (token.type === 'paragraph_open') node.source = inline.content;
        i++; // the inline token is consumed; the close token pops
        parent.push(node);
        stack.push(parent);
        parent = [];
        continue;
      }
      node.children = [];
      parent.push(node);
      stack.push(parent);
      parent = node.children;
    } else if (token.type === 'fence' || token.type === 'code_block')
      parent.push({ type: 'code', value: token.content.replace(/\n$/, ''), line });
    else if (token.type === 'html_block') parent.push({ type: 'html', value: token.content, line });
    else if (token.type === 'hr') parent.push({ type: 'thematicBreak', line });
  }
  return root;
}

/** Parses a markdown body into level-1/2 sections (deeper headings stay inside their section). */
export function parseSections(body: string): MdSection[] {
  const sections: MdSection[] = [];
  let current: MdSection | undefined;
  for (const node of buildTree(md().parse(body, {}))) {
    if (node.type === 'heading' && (node.depth ?? 9) <= 2) {
      current = {
        heading: nodeText(node).trim(),
        depth: node.depth ?? 2,
        line: node.line,
        nodes: [],
      };
      sections.push(current);
    } else if (current) current.nodes.push(node);
  }
  return sections;
}

/** Plain text of a node (inline code included), for headings. */
export function nodeText(node: MdAnyNode): string {
  if (typeof node.value === 'string') return node.value;
  return (node.children ?? []).map(nodeText).join('');
}

/** The source text a paragraph was parsed from (other nodes: their plain text). */
export function sourceOf(node: MdAnyNode): string {
  return node.source ?? nodeText(node);
}

/** 1-based line where a node starts. */
export function lineOf(node: MdAnyNode): number {
  return node.line;
}

/** Top-level list items of a section's lists, in order. */
export function listItems(nodes: readonly MdAnyNode[]): MdAnyNode[] {
  return nodes.filter((n) => n.type === 'list').flatMap((list) => list.children ?? []);
}

/** Every list item of a section's lists, nested ones included, in document order. */
export function allListItems(nodes: readonly MdAnyNode[]): MdAnyNode[] {
  const out: MdAnyNode[] = [];
  const walk = (items: MdAnyNode[]) => {
    for (const item of items) {
      out.push(item);
      for (const child of item.children ?? [])
        if (child.type === 'list') walk(child.children ?? []);
    }
  };
  walk(listItems(nodes));
  return out;
}
