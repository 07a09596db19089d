# expect: proved
# Reads each element's node count through a dataset API written as a class of @wp.func static methods (warp-simdata's `DatasetAPI.get_elem_from_idx(ds, i)`): the element API calls a module-level helper, the dataset API calls its own class's `DatasetAPI.get_num_elems`, and the kernel guards its thread id with the element count the API derives from the CSR offsets' length.
import warp as wp


@wp.struct
class Dataset:
    offsets: wp.array(dtype=wp.int32)
    first_id: wp.int32


@wp.func
def span(offsets: wp.array(dtype=wp.int32), i: wp.int32) -> wp.int32:
    return offsets[i + 1] - offsets[i]


class DatasetAPI:
    @staticmethod
    @wp.func
    def get_num_elems(ds: Dataset) -> wp.int32:
        return ds.offsets.shape[0] - 1

    @staticmethod
    @wp.func
    def get_elem_id(ds: Dataset, idx: wp.int32) -> wp.int32:
        assert idx >= 0 and idx < DatasetAPI.get_num_elems(ds), "element index out of range"
        return ds.first_id + idx


class ElementAPI:
    @staticmethod
    @wp.func
    def get_num_nodes(ds: Dataset, elem_id: wp.int32) -> wp.int32:
        return span(ds.offsets, elem_id - ds.first_id)


@wp.kernel
def node_counts(ds: Dataset, counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < DatasetAPI.get_num_elems(ds) and i < counts.shape[0]:
        counts[i] = ElementAPI.get_num_nodes(ds, DatasetAPI.get_elem_id(ds, i))
