import type { components } from './openapi.js';
export declare const operationScopes: Readonly<Record<string, components['schemas']['ApiKeyScope']>>;
