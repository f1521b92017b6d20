/** Runs an admin request again after errors Kafka marks retriable (leadership or metadata moving). */
export async function retryRetriable<T>(request: () => Promise<T>, { anyError = false } = {}): Promise<T> {
  const attempts = 10;
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const retriable = anyError || (error as { retriable?: boolean }).retriable === true;
      if (!retriable || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
