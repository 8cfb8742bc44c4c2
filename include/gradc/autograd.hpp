#pragma once
/// \file
/// gradc's dynamic mode: define-by-run autograd over dense tensors, with PyTorch's
/// semantics and LibTorch's names. See docs/dynamic.md.

#include <gradc/autograd/anomaly_mode.hpp>
#include <gradc/autograd/basic_ops.hpp>
#include <gradc/autograd/chain.hpp>
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/dtype.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/functional.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/graph_dot.hpp>
#include <gradc/autograd/hook_list.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/linalg_decompositions.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/options.hpp>
#include <gradc/autograd/print.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/saved_variable.hpp>
#include <gradc/autograd/scan.hpp>
#include <gradc/autograd/statistics.hpp>
#include <gradc/autograd/tensor.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/tensor_indexing.hpp>
#include <gradc/autograd/view.hpp>
#include <gradc/autograd/warning.hpp>
#include <gradc/parallel/threads.hpp>

// With the static mode also included: the operations that join the two (gradc/fused.hpp).
#define GRADC_DYNAMIC_MODE_INCLUDED
#ifdef GRADC_STATIC_MODE_INCLUDED
#include <gradc/fused.hpp>
#endif
