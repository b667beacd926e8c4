// The baseline of the gateway round-trip bench: a bare NestJS (Express adapter) application with
// one controller, GET /hello -> {"hello":"world"}, no logger, no middleware. With HELLO_TLS_CERT_PATH
// and HELLO_TLS_KEY_PATH it serves HTTPS, TLS 1.3 only (like every Certlane listener); without them
// plain HTTP. Plain ESM: decorators are applied by hand, nothing is compiled.
//
//   HELLO_PORT=8080 [HELLO_TLS_CERT_PATH=cert.pem HELLO_TLS_KEY_PATH=key.pem] node hello-nest.mjs
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { NestFactory } = require('@nestjs/core');
const { Controller, Get, Module } = require('@nestjs/common');
const { ExpressAdapter } = require('@nestjs/platform-express');

class HelloController {
  hello() {
    return { hello: 'world' };
  }
}
Get('hello')(
  HelloController.prototype,
  'hello',
  Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'),
);
Controller()(HelloController);

class HelloModule {}
Module({ controllers: [HelloController] })(HelloModule);

const port = Number(process.env.HELLO_PORT ?? 8080);
const host = process.env.HELLO_LISTEN_ADDRESS ?? '127.0.0.1';
const certPath = process.env.HELLO_TLS_CERT_PATH;
const keyPath = process.env.HELLO_TLS_KEY_PATH;
const httpsOptions =
  certPath && keyPath
    ? { cert: readFileSync(certPath), key: readFileSync(keyPath), minVersion: 'TLSv1.3' }
    : undefined;

const app = await NestFactory.create(HelloModule, new ExpressAdapter(), {
  logger: false,
  ...(httpsOptions ? { httpsOptions } : {}),
});
await app.listen(port, host);

const shutdown = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
