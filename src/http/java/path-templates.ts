/**
 * Path matching for the frameworks other than SparkJava (Javalin, Micronaut, Spring): templates
 * like `/store-data/object/{oid}`, matched segment by segment on the raw path; literal segments
 * compare as sent, `{name}` segments take one non-empty segment and are percent-decoded. Empty
 * segments (`//`) count. Optionally a trailing slash is ignored (Javalin's default).
 */

export type PathParameters = Readonly<Record<string, string>>;

export function matchTemplate(template: string, rawPath: string, ignoreTrailingSlash: boolean): PathParameters | undefined {
  const path = ignoreTrailingSlash && rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const wanted = ignoreTrailingSlash && template.length > 1 && template.endsWith('/') ? template.slice(0, -1) : template;
  const actual = path.split('/');
  const expected = wanted.split('/');
  if (actual.length !== expected.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] as string;
    const a = actual[i] as string;
    if (e.startsWith('{') && e.endsWith('}')) {
      if (a === '') return undefined;
      params[e.slice(1, -1)] = decodeSegment(a);
    } else if (e !== a) {
      return undefined;
    }
  }
  return params;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
