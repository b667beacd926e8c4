import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { httpStatusFor } from './error-status';
import { toCertlaneError } from './to-certlane-error';

/** The shape body-parser gives its errors: an Error with a `type` (and status/expose). */
function bodyParserError(type: string, status: number): Error {
  return Object.assign(new Error(`body-parser: ${type}`), { type, status, statusCode: status, expose: true });
}

describe(toCertlaneError.name, () => {
  it('passes a CertlaneError through as the same instance, expected', () => {
    const error = new CertlaneError(ErrorCode.RenewalPolicyInUse, 'in use', { certificates: 2 });
    const [mapped, expected] = toCertlaneError(error);
    expect(mapped).toBe(error);
    expect(expected).toBe(true);
  });

  it.each([
    ['entity.parse.failed', 400, ErrorCode.MalformedJson, 'the request body is not valid JSON'],
    ['entity.too.large', 413, ErrorCode.PayloadTooLarge, 'the request body is too large'],
    ['encoding.unsupported', 415, ErrorCode.UnsupportedMediaType, 'unsupported request body encoding'],
    ['charset.unsupported', 415, ErrorCode.UnsupportedMediaType, 'unsupported request body encoding'],
  ])('maps the body-parser error %s to its code, expected', (type, status, code, message) => {
    const [mapped, expected] = toCertlaneError(bodyParserError(type, status));
    expect(mapped).toBeInstanceOf(CertlaneError);
    expect({ code: mapped.code, message: mapped.message, details: mapped.details, expected }).toEqual({
      code,
      message,
      details: undefined,
      expected: true,
    });
  });

  it('does not leak the parser message, which can quote the body', () => {
    const error = Object.assign(new SyntaxError('Unexpected token p in JSON at position 12: {"password":'), {
      type: 'entity.parse.failed',
    });
    expect(toCertlaneError(error)[0].message).not.toContain('password');
  });

  it.each([
    [new BadRequestException('bad query'), ErrorCode.ValidationFailed, 'bad query'],
    [new UnauthorizedException('who are you'), ErrorCode.Unauthenticated, 'who are you'],
    [new ForbiddenException('not yours'), ErrorCode.Forbidden, 'not yours'],
    [new MethodNotAllowedException(), ErrorCode.MethodNotAllowed, 'Method Not Allowed'],
    [new PayloadTooLargeException(), ErrorCode.PayloadTooLarge, 'Payload Too Large'],
    [new UnsupportedMediaTypeException(), ErrorCode.UnsupportedMediaType, 'Unsupported Media Type'],
  ])('maps the Nest %p to its code and keeps its message, expected', (exception, code, message) => {
    const [mapped, expected] = toCertlaneError(exception);
    expect({ code: mapped.code, message: mapped.message, expected }).toEqual({
      code,
      message,
      expected: true,
    });
  });

  it("maps Nest's NotFoundException (an unknown route) to route_not_found with a fixed message", () => {
    const [mapped, expected] = toCertlaneError(new NotFoundException('Cannot GET /api/v1/nope'));
    expect({ code: mapped.code, message: mapped.message, expected }).toEqual({
      code: 'route_not_found',
      message: 'no such route',
      expected: true,
    });
    expect(toCertlaneError(new NotFoundException())[0].code).toBe('route_not_found');
  });

  it.each([
    ['a plain Error', new Error('db connection lost: password=hunter2')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a Nest exception with an unmapped status', new ConflictException('dup')],
    ['a Nest 500', new InternalServerErrorException('boom')],
    ['a custom HttpException status', new HttpException('teapot', 418)],
    ['an unknown body-parser type', bodyParserError('stream.not.readable', 500)],
    ['a thrown string', 'something broke'],
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
  ])('turns %s into a generic internal_error, unexpected', (_label, thrown) => {
    const [mapped, expected] = toCertlaneError(thrown);
    expect(mapped).toBeInstanceOf(CertlaneError);
    expect({ code: mapped.code, message: mapped.message, details: mapped.details, expected }).toEqual({
      code: 'internal_error',
      message: 'internal error',
      details: undefined,
      expected: false,
    });
  });

  // Regression: body-parser failures caused by the client other than the four mapped types
  // (request.size.invalid when Content-Length does not match the body, request.aborted,
  // parameters.too.many...) become internal_error: a 500 and an "unhandled error" log line for a
  // client mistake.
  it.each([
    ['request.size.invalid', 400],
    ['request.aborted', 400],
  ])('maps the client-side body-parser error %s to an expected 4xx', (type, status) => {
    const [mapped, expected] = toCertlaneError(bodyParserError(type, status));
    expect(expected).toBe(true);
    expect(httpStatusFor(mapped.code)).toBeGreaterThanOrEqual(400);
    expect(httpStatusFor(mapped.code)).toBeLessThan(500);
  });

  it('makes an unreachable database an expected service_unavailable, not a 500', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const [mapped, expected] = toCertlaneError(refused);
    expect(mapped.code).toBe(ErrorCode.ServiceUnavailable);
    expect(httpStatusFor(mapped.code)).toBe(503);
    expect(expected).toBe(true);
  });

  it('maps a body that does not decompress (Content-Encoding br, gzip) to body_encoding_invalid, expected', () => {
    for (const [code, errno] of [
      ['ERR__ERROR_FORMAT_PADDING_1', -14],
      ['Z_DATA_ERROR', -3],
    ] as const) {
      // body-parser wraps the zlib error as a 400 without a `type`.
      const error = Object.assign(new Error('Decompression failed'), {
        code,
        errno,
        status: 400,
        expose: true,
      });
      const [mapped, expected] = toCertlaneError(error);
      expect([mapped.code, httpStatusFor(mapped.code), expected]).toEqual([
        ErrorCode.BodyEncodingInvalid,
        400,
        true,
      ]);
    }
  });

  it('maps a Postgres integrity error no caller mapped to its 4xx code, logged as a gap', () => {
    const restrict = Object.assign(new Error('violates RESTRICT setting'), {
      driverError: { code: '23001' },
    });
    const [mapped, expected] = toCertlaneError(restrict);
    expect([mapped.code, httpStatusFor(mapped.code), expected]).toEqual([ErrorCode.Conflict, 409, false]);
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
    });
    expect(toCertlaneError(nul)[0].code).toBe(ErrorCode.InputNulByte);
  });
});
