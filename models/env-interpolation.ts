/**
 * `${NAME}` / `${NAME:-default}` references to environment variables in config files
 * (experiment configs, judge panels), resolved when a file is loaded so bundled configs can name
 * an endpoint without holding it. Secrets are never interpolated into configs: API keys are named
 * by their variable (`apiKeyEnv`) and read by the model layer.
 */

/** Error for a referenced variable that is unset and has no default; `path` names the field. */
export class EnvInterpolationError extends Error {
  constructor(
    readonly path: string,
    readonly variable: string,
  ) {
    super(`${path || "(root)"}: environment variable ${variable} is not set (use \${${variable}:-default} for a default)`);
    this.name = "EnvInterpolationError";
  }
}

/**
 * Replace `${NAME}` / `${NAME:-default}` in every string of a parsed config (objects and arrays
 * are walked; other values are returned as they are).
 * @param path dotted path of `value` used in error messages.
 * @throws EnvInterpolationError naming the field and the variable.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv = process.env, path = ""): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== "") return v;
      if (def !== undefined) return def;
      throw new EnvInterpolationError(path, name);
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, path ? `${path}.${i}` : String(i)));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, path ? `${path}.${k}` : k)]));
  }
  return value;
}
