import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The inline images kept in a process's private bucket (`uploads/{account}/{job}/{photo|logo}`). */
export function uploadsOnDisk(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, 'objects', 'private', 'uploads'), {
      recursive: true,
      withFileTypes: true,
    })
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}
