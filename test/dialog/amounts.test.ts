import t from 'tap';
import { findAmounts, findBudget, formatAmount } from '../../src/dialog/amounts.js';

const norm = (s: string) => { const a = findBudget(s); return a && formatAmount(a); };

t.test('Indian style: lakh and crore, in words or digits, imply rupees', async (t) => {
  t.equal(norm('eighty lakh'), '8000000 INR');
  t.equal(norm('80 lakh'), '8000000 INR');
  t.equal(norm('₹80L'), '8000000 INR');
  t.equal(norm('80 lacs'), '8000000 INR');
  t.equal(norm('one point two crore'), '12000000 INR');
  t.equal(norm('1.2 Cr'), '12000000 INR');
  t.equal(norm('one crore twenty lakh'), '12000000 INR');
  t.equal(norm('twenty five lakh rupees'), '2500000 INR');
  t.equal(norm('1,50,000'), '150000', 'Indian digit grouping');
  t.equal(norm('Rs. 50 lakh'), '5000000 INR');
});

t.test('a size is no budget: a unit of area or length after the number', async (t) => {
  t.equal(norm('a plot of two thousand square feet'), undefined);
  t.equal(norm('five acres'), undefined);
  t.equal(norm('1200 sq ft'), undefined);
  t.equal(norm('2400 sq ft for eighty lakh'), '8000000 INR', 'the money beside the size');
  t.equal(norm('five thousand rupees per square foot'), '5000 INR', 'a price per unit is money');
});

t.test('international style', async (t) => {
  t.equal(norm('two hundred thousand'), '200000');
  t.equal(norm('one hundred and fifty thousand'), '150000');
  t.equal(norm('1.5 million'), '1500000');
  t.equal(norm('half a million dollars'), '500000 USD');
  t.equal(norm('one and a half million'), '1500000');
  t.equal(norm('$400k'), '400000 USD');
  t.equal(norm('around 400,000 dollars'), '400000 USD');
  t.equal(norm('£250,000.50'), '250000.50 GBP');
  t.equal(norm('a million euros'), '1000000 EUR');
});

t.test('what is not a budget', async (t) => {
  t.equal(norm('I have 3 kids'), undefined);
  t.equal(norm('at 3 pm'), undefined);
  t.equal(norm("I'm not sure"), undefined);
  t.equal(norm('between 300 and 400 thousand'), '400000', 'the amount with a scale wins');
  t.same(findAmounts('300 and 400 thousand').map((a) => a.value), [300, 400000], 'two numbers are two amounts');
});
