/** Finding an element again after the app has replaced the prerendered landing markup with the same tree. */

/** Child indexes from #root down to `el` (the app renders the same tree, so the path finds its twin). */
export function pathOf(el: Element, top: Element): number[] | undefined {
  const path: number[] = [];
  for (let node: Element | null = el; node && node !== top; node = node.parentElement) {
    if (!node.parentElement) return undefined;
    path.unshift(Array.prototype.indexOf.call(node.parentElement.children, node));
  }
  return path;
}

export function elementAt(top: Element, path: number[]): HTMLElement | undefined {
  let node: Element | undefined = top;
  for (const i of path) node = node?.children[i];
  return node instanceof HTMLElement ? node : undefined;
}
