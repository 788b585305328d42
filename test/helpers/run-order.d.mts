// The types of ./run-order.mjs (plain JavaScript, since npm test's progress reporter, which Node loads
// without a TypeScript loader, imports it too).
export declare const durationsFile: string;
export declare const currentPass: () => 'postgres' | 'pglite';
export declare const measuredDurationsFile: (pass?: 'postgres' | 'pglite') => string;
export declare const aloneFromMs: number;
export declare const filesPerProcess: number;
export declare function recordedDurations(pass?: 'postgres' | 'pglite'): Record<string, number>;
export declare function planRuns(files: string[], durations: Record<string, number>): string[][];
