export declare const idempotentOperations: ReadonlySet<string>;
