// The addresses of the pages for people (the areas' pages.tsx), where the API points its readers: a bot's
// profile_url is the page of that bot, absolute, from PUBLIC_URL.

/** A bot's page by name (names are `A-Z a-z 0-9 . _ -`, nothing to escape); absolute when given PUBLIC_URL. */
export function botPagePath(name: string): string {
  return `/bot/${encodeURIComponent(name)}`;
}

export function botPageUrl(publicUrl: string, name: string): string {
  return `${publicUrl}${botPagePath(name)}`;
}
