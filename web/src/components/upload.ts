// Files from a drop: plain files, and the files inside dropped folders (walked recursively).
type Entry = { isFile: boolean; isDirectory: boolean; name: string; file?: (cb: (f: File) => void, err: (e: unknown) => void) => void; createReader?: () => { readEntries: (cb: (e: Entry[]) => void, err: (e: unknown) => void) => void } };

async function walk(entry: Entry): Promise<File[]> {
  if (entry.isFile && entry.file) return [await new Promise<File>((resolve, reject) => entry.file!(resolve, reject))];
  if (!entry.isDirectory || !entry.createReader) return [];
  const reader = entry.createReader();
  const files: File[] = [];
  // readEntries answers in chunks until it answers an empty list.
  for (;;) {
    const chunk = await new Promise<Entry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!chunk.length) break;
    for (const child of chunk) if (!child.name.startsWith('.')) files.push(...(await walk(child)));
  }
  return files;
}

export async function filesFromDrop(data: DataTransfer): Promise<File[]> {
  const entries = Array.from(data.items)
    .map((item) => (item.webkitGetAsEntry?.() ?? null) as unknown as Entry | null)
    .filter((e): e is Entry => !!e);
  if (!entries.length) return Array.from(data.files);
  const nested = await Promise.all(entries.map(walk));
  return nested.flat();
}
