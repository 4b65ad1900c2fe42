import { walkCentralDirectory } from "./centralDirectory.ts";
import { readEndOfCentralDirectory } from "./endOfCentralDirectory.ts";
import { PositionedReader } from "./PositionedReader.ts";

/**
 * Cheap check for upload confirmation: the end-of-central-directory record is
 * found and the central directory parses. No entry is inflated.
 */
export async function isReadableZip(path: string): Promise<boolean> {
  let reader: PositionedReader;
  try {
    reader = await PositionedReader.open(path);
  } catch {
    return false;
  }
  try {
    const eocd = await readEndOfCentralDirectory(reader);
    await walkCentralDirectory(reader, eocd, () => {});
    return true;
  } catch {
    return false;
  } finally {
    await reader.close();
  }
}
