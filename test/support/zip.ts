// Writes zip archives for tests (deflated entries, no zip64): web, enterprise and EJB archives
// built from descriptors given as text, nested archives given as bytes.
import { crc32, deflateRawSync } from 'node:zlib';

export function makeZip(entries: Record<string, string | Uint8Array>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const packed = deflateRawSync(data);
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(packed.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(fileName.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, fileName, packed);
    central.push(header, fileName);
    offset += local.length + fileName.length + packed.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** A web.xml declaring servlets, each mapped to its patterns. */
export function webXml(servlets: { name: string; className: string; patterns: string[] }[], sessionMinutes?: number): string {
  const decl = servlets.map((s) => `  <servlet>\n    <servlet-name>${s.name}</servlet-name>\n    <servlet-class>${s.className}</servlet-class>\n  </servlet>`).join('\n');
  const maps = servlets
    .map((s) => `  <servlet-mapping>\n    <servlet-name>${s.name}</servlet-name>\n${s.patterns.map((p) => `    <url-pattern>${p}</url-pattern>`).join('\n')}\n  </servlet-mapping>`)
    .join('\n');
  const session = sessionMinutes === undefined ? '' : `\n  <session-config><session-timeout>${sessionMinutes}</session-timeout></session-config>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<web-app xmlns="http://xmlns.jcp.org/xml/ns/javaee" version="3.1">\n${decl}\n${maps}${session}\n</web-app>\n`;
}
