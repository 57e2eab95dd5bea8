// The shape of the ajv standalone validator compiled from spec/connector.schema.json.

/** One failure as ajv reports it (instancePath is a JSON pointer into the manifest). */
export interface CompiledValidatorError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, any>;
  message?: string;
}

/** Returns true when the data is a valid manifest; otherwise `errors` lists every failure. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: CompiledValidatorError[] | null;
}
