"""A text classifier the way TF 2 programs write one without Keras: a vocabulary file and tf.lookup tables, a
tf.data pipeline that normalizes, splits and looks words up, a model trained with GradientTape, word counts in a
mutable table, and the whole model saved and loaded back as a SavedModel."""

import json
import os
import tempfile

import tensorflow as tf

folder = tempfile.mkdtemp()
vocab_path = os.path.join(folder, "vocab.txt")
with open(vocab_path, "w") as f:
    f.write("good\nbad\ngreat\nawful\nmovie\nplot\n")

sentences = ["Good movie", "  awful PLOT ", "great great plot", "bad movie", "Great acting", "awful, bad"]
labels = [1, 0, 1, 0, 1, 0]

init = tf.lookup.TextFileInitializer(vocab_path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                     tf.lookup.TextFileIndex.LINE_NUMBER)
vocab = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=2)
NUM_IDS = 8
MAX_WORDS = 3


def to_ids(sentence, label):
    words = tf.strings.split(tf.strings.strip(tf.strings.lower(sentence)))
    ids = vocab.lookup(words)
    ids = tf.concat([ids, tf.fill([MAX_WORDS], tf.constant(-1, tf.int64))], 0)[:MAX_WORDS]
    return ids, label


data = tf.data.Dataset.from_tensor_slices((sentences, labels)).map(to_ids).batch(3)


class Classifier(tf.Module):
    def __init__(self):
        super().__init__()
        self.embedding = tf.Variable(tf.reshape(tf.range(NUM_IDS * 4, dtype=tf.float32), [NUM_IDS, 4]) * 0.05 - 0.5)
        self.w = tf.Variable(tf.constant([[0.3], [-0.2], [0.1], [0.4]]))
        self.b = tf.Variable([0.0])
        self.table = vocab
        self.counts = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, 0)

    def logits(self, ids):
        mask = tf.cast(ids >= 0, tf.float32)
        vectors = tf.gather(self.embedding, tf.maximum(ids, 0)) * mask[..., None]
        mean = tf.reduce_sum(vectors, 1) / tf.maximum(tf.reduce_sum(mask, 1, keepdims=True), 1.0)
        return tf.squeeze(tf.matmul(mean, self.w) + self.b, -1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def predict(self, sentences):
        words = tf.strings.split(tf.strings.strip(tf.strings.lower(sentences))).to_tensor("")
        ids = self.table.lookup(words)
        ids = tf.where(words == "", tf.constant(-1, tf.int64), ids)[:, :MAX_WORDS]
        return tf.sigmoid(self.logits(ids))

    @tf.function
    def count(self, ids):
        for i in tf.range(tf.size(ids)):
            word = tf.reshape(ids, [-1])[i]
            if word >= 0:
                self.counts.insert([word], self.counts.lookup([word]) + 1)
        return self.counts.size()


model = Classifier()
optimizer_lr = 0.5
losses = []
for epoch in range(15):
    for ids, y in data:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(
                tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(y, tf.float32), logits=model.logits(ids))
            )
        grads = tape.gradient(loss, [model.embedding, model.w, model.b])
        for variable, grad in zip([model.embedding, model.w, model.b], grads, strict=True):
            variable.assign_sub(optimizer_lr * tf.convert_to_tensor(grad))
        if epoch % 5 == 0:
            losses.append(round(float(loss), 5))

sizes = [int(model.count(ids)) for ids, _ in data]
keys, values = model.counts.export()
counted = sorted(zip(keys.numpy().tolist(), values.numpy().tolist(), strict=True))
test = tf.constant(["good plot", "awful movie", "unknown words here"])
before = model.predict(test).numpy().tolist()

saved = os.path.join(folder, "classifier")
tf.saved_model.save(model, saved)
os.remove(vocab_path)  # the vocabulary travels with the SavedModel as an asset
loaded = tf.saved_model.load(saved)
after = loaded.predict(test).numpy().tolist()

results = {
    "ids": [ids.numpy().tolist() for ids, _ in data],
    "losses": losses,
    "sizes": sizes,
    "counted": counted,
    "before": [round(v, 5) for v in before],
    "after": [round(v, 5) for v in after],
    "vocab_size": int(vocab.size()),
}
print("RESULT", json.dumps(results))
