// Data portability formats: import parsers (run on the worker pool) and export writers (streamed).
export {};
