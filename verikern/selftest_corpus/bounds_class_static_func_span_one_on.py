# expect: failed bounds
# Reads each element's node count through a dataset API written as a class of @wp.func static methods, as ok_class_static_func_dataset_api does, but the element API reads the span one element on (`elem_id - ds.first_id + 1`): the last element reads past the offsets. Witness: two offsets (one element): thread 0 reads offsets[2].
# bug: 16:12 bounds
# witness bounds: dim=1, block_dim=1, ds__offsets=array(int32, [0, 3]), ds__first_id=5, counts=zeros(int32, 1)
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
        return span(ds.offsets, elem_id - ds.first_id + 1)


@wp.kernel
def node_counts(ds: Dataset, counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < DatasetAPI.get_num_elems(ds) and i < counts.shape[0]:
        counts[i] = ElementAPI.get_num_nodes(ds, DatasetAPI.get_elem_id(ds, i))
