/* TF_InitKernel of modtensor's native CPU kernel library: registers its kernels for
 * the CPU device through TensorFlow's kernel C API, at a priority above the numpy
 * kernels (which remain for the dtypes and ops this library does not cover). */
#include "mtk.h"

MTK_EXPORT void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  mtk_blas_init();
  mtk_register_conv(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_matmul(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_pooling(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_eltwise(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_pad(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_strided_slice(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_binary(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_concat(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_unary(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_reduce(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_transpose(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_einsum(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_image(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_select(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_layer_norm(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_random(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_cast(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_gather_scatter_nd(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_segment_sum(s);
  if (TF_GetCode(s) == TF_OK) mtk_register_top_k(s);
  TF_DeleteStatus(s);
}
