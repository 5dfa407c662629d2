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

/**
 * Every `${NAME}` reference in a parsed config that is unset and has no default (all of them, not
 * only the first), with the dotted path of the field that holds it.
 */
export function unsetEnvReferences(value: unknown, env: NodeJS.ProcessEnv = process.env, path = ""): { path: string; variable: string }[] {
  if (typeof value === "string") {
    const out: { path: string; variable: string }[] = [];
    for (const m of value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g)) {
      const v = env[m[1]];
      if ((v === undefined || v === "") && m[2] === undefined) out.push({ path, variable: m[1] });
    }
    return out;
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => unsetEnvReferences(v, env, path ? `${path}.${i}` : String(i)));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => unsetEnvReferences(v, env, path ? `${path}.${k}` : k));
  return [];
}
