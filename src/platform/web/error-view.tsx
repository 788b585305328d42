// The page a person's browser gets for an error (a 404, a 429, a 500): what happened, in a sentence.
export function ErrorView({ title, detail }: { title: string; detail: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p>{detail}</p>
      <p>
        <a href="/">Back to The Lobby</a>
      </p>
    </>
  );
}
