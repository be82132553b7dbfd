// XML error documents: the flat ones (an <Error> root of plain-text children, as S3 and Azure
// Storage send) are read without the parser, and must read exactly as the parser reads them; any
// other document goes to the parser.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsedError, xmlError } from '../../src/core/xml.js';

const name = fc.oneof(fc.constantFrom('Code', 'Message', 'RequestId', 'HostId', 'ArgumentName', 'ArgumentValue', '__proto__', 'constructor', 'A.b', 'x-y', '_'), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.:-]{0,8}$/));
// Text that is plain, and text with what XML treats specially: references, CDATA ends, CR, controls, surrogates, markup.
const text = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9 .,'"/=-]{0,30}$/), weight: 4 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 2 },
  { arbitrary: fc.constantFrom('&amp;', 'a &lt; b', ']]>', 'a\r\nb', '\u0001', '\ud800', '😀', ' padded ', '\t\n', '<b>x</b>', '&#x41;', 'a>b'), weight: 2 },
);
const space = fc.constantFrom('', ' ', '\n', '\n  ', '\t', '\r\n');
const declaration = fc.constantFrom('', '<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0" encoding="utf-8"?>', '<?xml version="1.0" encoding="Utf-8"?>', '<?xml version="1.0"?>', '\uFEFF<?xml version="1.0" encoding="UTF-8"?>', ' <?xml version="1.0"?>', "<?xml version='1.0'?>", '\uFEFF');
const elements = fc.array(fc.record({ name, text, space }), { maxLength: 6 }).map((children) => children.map((c) => `${c.space}<${c.name}>${c.text}</${c.name}>`).join(''));
// The AWS query protocol's wrapper, with the namespace STS sends, a near miss of it, or none.
const wrapper = fc.constantFrom('', '<ErrorResponse>', '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">', '<ErrorResponse xmlns="">', "<ErrorResponse xmlns='x'>", '<ErrorResponse a="b">', '<ErrorResponse xmlns="a\u0001">', '<Response><Errors>');
const document = fc
  .record({ declaration, before: space, wrap: wrapper, children: elements, after: space, siblings: elements, tail: fc.constantFrom('', '\n', ' x', '<Other/>') })
  .map(({ declaration: decl, before, wrap, children, after, siblings, tail }) => {
    const close = wrap === '' ? '' : wrap.startsWith('<Response>') ? '</Errors></Response>' : '</ErrorResponse>';
    return `${decl}${before}${wrap}${wrap ? before : ''}<Error>${children}${after}</Error>${wrap ? siblings : ''}${close}${tail}`;
  });

describe('XML error documents', () => {
  it('read a flat <Error> document exactly as the parser reads it, whatever its names and text', () => {
    fc.assert(
      fc.property(document, (xml) => {
        expect(xmlError(xml)).toEqual(parsedError(xml));
        expect(xmlError(xml, true)).toEqual(parsedError(xml, true));
      }),
      { numRuns: 5000 },
    );
  });

  it("read S3's documented errors, and leave wrapped ones (the query protocol) to the parser", () => {
    const s3 = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The resource you requested does not exist</Message><Resource>/mybucket/myfoto.jpg</Resource><RequestId>4442587FB7D0A2F9</RequestId></Error>';
    expect(xmlError(s3)).toEqual({ Code: 'NoSuchKey', Message: 'The resource you requested does not exist', Resource: '/mybucket/myfoto.jpg', RequestId: '4442587FB7D0A2F9' });
    const query = '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>x</RequestId></ErrorResponse>';
    expect(xmlError(query)).toEqual({ Type: 'Sender', Code: 'Throttling', Message: 'Rate exceeded' });
    expect(xmlError(query, true)).toBeNull();
    expect(xmlError('<Error><Code>A</Code><Code>B</Code></Error>')).toEqual({ Code: 'A' });
    expect(Object.getPrototypeOf(xmlError('<Error><__proto__>x</__proto__></Error>'))).toBe(Object.prototype);
  });
});
