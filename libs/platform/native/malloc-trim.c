/*
 * glibc's malloc_trim(0) for Node: gives the free pages inside malloc's arenas back to the kernel.
 * glibc returns memory by itself only from the top of an arena, so a few live blocks above a freed
 * stretch (libvips' and the engine's buffers of a finished render) keep all of it resident.
 * `trim()` runs on libuv's thread pool and resolves to whether any memory was released.
 */
#define NAPI_VERSION 8
#include <malloc.h>
#include <node_api.h>
#include <stdlib.h>

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int released;
} Trim;

static void Execute(napi_env env, void *data) {
  (void)env;
  Trim *trim = data;
  trim->released = malloc_trim(0);
}

static void Complete(napi_env env, napi_status status, void *data) {
  Trim *trim = data;
  napi_value value;
  if (status == napi_ok) {
    napi_get_boolean(env, trim->released == 1, &value);
    napi_resolve_deferred(env, trim->deferred, value);
  } else {
    napi_value message;
    napi_create_string_utf8(env, "malloc_trim was cancelled", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &value);
    napi_reject_deferred(env, trim->deferred, value);
  }
  napi_delete_async_work(env, trim->work);
  free(trim);
}

static napi_value TrimAsync(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value promise, name;
  Trim *trim = calloc(1, sizeof *trim);
  if (trim == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  if (napi_create_promise(env, &trim->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "thumbforge.malloc_trim", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, Execute, Complete, trim, &trim->work) != napi_ok ||
      napi_queue_async_work(env, trim->work) != napi_ok) {
    free(trim);
    napi_throw_error(env, NULL, "malloc_trim could not be queued");
    return NULL;
  }
  return promise;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, TrimAsync, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  return exports;
}
