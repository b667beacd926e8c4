import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { IMMUTABLE, loadWebBuild, WEB_CSP, webAnswerFor, WebBuild, WebFile } from './web-app-files';

/**
 * The web GUI from the gateway's origin (ADR 0038, 0052): hashed assets with a year's immutable
 * cache, index.html (`no-cache`) for every other non-API path so client-side routes survive a
 * reload. Added after every route and the 405 check, so it only sees requests nothing else
 * answered; the API's 404 and 405 stay as they were.
 */
@Injectable()
export class WebAppFallback implements OnModuleInit {
  private build: WebBuild | undefined;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    this.build = loadWebBuild();
    if (!this.build) return;
    this.adapterHost.httpAdapter?.use((request: Request, response: Response, next: NextFunction) =>
      this.use(request, response, next),
    );
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const build = this.build;
    if (!build) return next();
    const answer = webAnswerFor(request.method, request.path);
    if (answer.kind === 'none') return next();
    if (answer.kind === 'asset') {
      const file = build.assets.get(answer.path);
      if (!file) return next();
      return send(request, response, file, IMMUTABLE);
    }
    send(request, response, build.index, 'no-cache');
  }
}

function send(request: Request, response: Response, file: WebFile, cacheControl: string): void {
  response.status(200);
  response.setHeader('Content-Security-Policy', WEB_CSP);
  response.setHeader('Cache-Control', cacheControl);
  response.setHeader('Content-Type', file.contentType);
  response.setHeader('Content-Length', String(file.body.length));
  if (request.method === 'HEAD') response.end();
  else response.end(file.body);
}
